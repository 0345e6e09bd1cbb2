// io/input_registry.cpp — see input_registry.hpp. A list behind a mutex: a run reads
// tens of files, so a linear search is the clearest form. A class of 100,000 reads as
// many, so an entry is kept small (80 bytes: its folder shared with the entry before, a
// short name held in place, the real path only when it differs) and the list grows
// without copying (a deque).
#include "io/input_registry.hpp"

#include <climits>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>

#include <sys/stat.h>

namespace attn::io {

namespace {

struct identity {
    std::shared_ptr<const std::string> folder;  // the path given up to its last '/'
    std::string name;                           // the rest of it
    std::unique_ptr<const std::string> real;    // realpath, when it differs from the path given
    bool resolved = false;                      // realpath succeeded
    bool has_inode = false;
    dev_t dev = 0;
    ino_t ino = 0;
    std::string path() const { return *folder + name; }
    std::string real_path() const { return real ? *real : path(); }
};

std::mutex registry_mutex;
std::deque<identity>& registry() {
    static std::deque<identity> inputs;
    return inputs;
}

identity identify(const std::string& path) {
    identity id;
    const std::size_t cut = path.rfind('/') + 1;  // 0 when there is no '/'
    id.folder = std::make_shared<const std::string>(path.substr(0, cut));
    id.name = path.substr(cut);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        id.has_inode = true;
        id.dev = st.st_dev;
        id.ino = st.st_ino;
    }
    if (char* real = ::realpath(path.c_str(), nullptr)) {
        id.resolved = true;
        if (path != real) id.real = std::make_unique<const std::string>(real);
        std::free(real);
    }
    return id;
}

}  // namespace

void register_input(const std::string& path) {
    if (path.empty() || path == "-") return;
    identity id = identify(path);
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto& inputs = registry();
    if (!inputs.empty() && *inputs.back().folder == *id.folder) id.folder = inputs.back().folder;  // one copy per folder
    inputs.push_back(std::move(id));
}

std::optional<std::string> input_matching(const std::string& path) {
    if (path.empty() || path == "-") return std::nullopt;
    const identity out = identify(path);
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (const identity& in : registry()) {
        if (out.has_inode && in.has_inode && out.dev == in.dev && out.ino == in.ino) return in.path();
        if (out.resolved && in.resolved && out.real_path() == in.real_path()) return in.path();
    }
    return std::nullopt;
}

void clear_inputs() {
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry().clear();
}

}  // namespace attn::io
