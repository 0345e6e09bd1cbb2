// io/input_registry.cpp — see input_registry.hpp. A small list behind a mutex: a run
// reads tens of files, so a linear search is the clearest form.
#include "io/input_registry.hpp"

#include <climits>
#include <cstdlib>
#include <mutex>
#include <vector>

#include <sys/stat.h>

namespace attn::io {

namespace {

struct identity {
    std::string path;       // as given
    std::string canonical;  // realpath, "" if it did not resolve
    bool has_inode = false;
    dev_t dev = 0;
    ino_t ino = 0;
};

std::mutex registry_mutex;
std::vector<identity>& registry() {
    static std::vector<identity> inputs;
    return inputs;
}

identity identify(const std::string& path) {
    identity id;
    id.path = path;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        id.has_inode = true;
        id.dev = st.st_dev;
        id.ino = st.st_ino;
    }
    if (char* real = ::realpath(path.c_str(), nullptr)) {
        id.canonical = real;
        std::free(real);
    }
    return id;
}

}  // namespace

void register_input(const std::string& path) {
    if (path.empty() || path == "-") return;
    identity id = identify(path);
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry().push_back(std::move(id));
}

std::optional<std::string> input_matching(const std::string& path) {
    if (path.empty() || path == "-") return std::nullopt;
    const identity out = identify(path);
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (const identity& in : registry()) {
        if (out.has_inode && in.has_inode && out.dev == in.dev && out.ino == in.ino) return in.path;
        if (!out.canonical.empty() && out.canonical == in.canonical) return in.path;
    }
    return std::nullopt;
}

void clear_inputs() {
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry().clear();
}

}  // namespace attn::io
