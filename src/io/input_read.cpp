// io/input_read.cpp — see input_read.hpp. Open without blocking, fstat, refuse what
// is not a regular file, then read in bounded chunks.
#include "io/input_read.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/input_registry.hpp"
#include "io/toml_depth.hpp"

namespace attn::io {

namespace {

// What a non-regular file is, in words, for the refusal.
std::string kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

[[noreturn]] void fail_open(const std::string& path, const std::string& what, int err) {
    const source_pos at{path, 0, 0};
    const std::string cannot = "cannot open the " + what + ": ";
    if (err == ENOENT || err == ENOTDIR) throw input_error("not-found", at, cannot + "no such file");
    if (err == EACCES || err == EPERM) throw input_error("unreadable", at, cannot + "permission denied");
    throw input_error("unreadable", at, cannot + std::strerror(err));
}

std::string too_large(std::size_t have, std::size_t limit, bool at_least) {
    return std::string("the file has ") + (at_least ? "more than " : "") + std::to_string(have) +
           " bytes, more than the limit of " + std::to_string(limit);
}

}  // namespace

input_file::input_file(const std::string& path, const std::string& what) {
    if (path == "-") {
        name_ = stdin_name;
        fd_ = STDIN_FILENO;
        struct stat st {};
        if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
            sized_ = true;
            size_ = static_cast<std::size_t>(st.st_size);
        }
        return;
    }
    name_ = path;
    if (path.empty()) throw input_error("not-found", source_pos{"(empty path)", 0, 0}, "no file name given");
    register_input(path);
    // O_NONBLOCK: opening a FIFO with no writer must not hang; fstat decides next.
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) fail_open(path, what, errno);
    owned_ = true;
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail_open(path, what, errno);
    if (!S_ISREG(st.st_mode)) {
        const std::string kind = kind_of(st.st_mode);
        ::close(fd_);
        fd_ = -1;
        throw input_error("not-a-file", source_pos{path, 0, 0}, "cannot read the " + what + ": it is " + kind +
                                                                  "; attn reads regular files only");
    }
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
    sized_ = true;
    size_ = static_cast<std::size_t>(st.st_size);
}

input_file::~input_file() {
    if (owned_ && fd_ >= 0) ::close(fd_);
}

std::size_t input_file::read(char* buf, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::read(fd_, buf + got, n - got);
        if (r == 0) break;
        if (r < 0) {
            if (errno == EINTR) continue;
            throw input_error("unreadable", source_pos{name_, 0, 0},
                              std::string("reading the file failed (") + std::strerror(errno) + ")");
        }
        got += static_cast<std::size_t>(r);
    }
    return got;
}

std::string read_input_file(const std::string& path, const input_limits& limits) {
    input_file in(path, limits.what);
    if (in.sized() && in.size() > limits.max_bytes)
        throw input_error("too-large", source_pos{in.name(), 0, 0}, too_large(in.size(), limits.max_bytes, false));
    // Read in chunks up to one byte past the limit: enough to know it was exceeded,
    // never more (standard input may be endless).
    std::string text;
    constexpr std::size_t chunk = 64 * 1024;
    while (true) {
        const std::size_t want = std::min(chunk, limits.max_bytes + 1 - text.size());
        const std::size_t at = text.size();
        text.resize(at + want);
        const std::size_t got = in.read(&text[at], want);
        text.resize(at + got);
        if (text.size() > limits.max_bytes)
            throw input_error("too-large", source_pos{in.name(), 0, 0}, too_large(limits.max_bytes, limits.max_bytes, true));
        if (got < want) break;
    }
    if (limits.toml) check_toml_nesting(text, in.name());
    return text;
}

folder_files list_folder(const std::string& dir, const std::vector<std::string>& extensions, int max_depth,
                         const std::string& what) {
    namespace fs = std::filesystem;
    std::string wanted;  // ".toml or .json"
    for (const auto& e : extensions) wanted += (wanted.empty() ? "" : " or ") + e;
    folder_files out;
    std::vector<fs::path> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const fs::path& path = it->path();
        const std::string name = path.filename().string();
        const auto st = it->symlink_status(ec);
        if ((!name.empty() && name[0] == '.') || name == "__MACOSX" || fs::is_symlink(st) ||
            (fs::is_directory(st) && it.depth() + 1 >= max_depth)) {
            if (fs::is_directory(st)) it.disable_recursion_pending();
            if (fs::is_symlink(st)) out.skipped.emplace_back(path.string(), "a symbolic link, not followed");
            continue;
        }
        if (fs::is_directory(st)) continue;
        const std::string ext = path.extension().string();
        if (!fs::is_regular_file(st) || std::find(extensions.begin(), extensions.end(), ext) == extensions.end()) {
            out.skipped.emplace_back(path.string(), "ignored: not a " + wanted + " " + what);
            continue;
        }
        files.push_back(path);
        out.bytes += static_cast<std::size_t>(fs::file_size(path, ec));
    }
    if (ec)
        throw input_error(error::as_written{}, "unreadable", {dir, 0, 0}, dir + ": cannot read the folder (" + ec.message() + ")");
    std::sort(files.begin(), files.end());
    for (const auto& f : files) out.files.push_back(f.string());
    return out;
}

}  // namespace attn::io
