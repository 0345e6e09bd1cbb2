// io/state_dir.cpp — see state_dir.hpp. The key file is attn's own state, read here
// directly (regular file, no symlink, exactly one line of 64 hex digits); a key file
// that is not one is never trusted and never replaced (a run-only key is used).
#include "io/state_dir.hpp"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/keyed_hash.hpp"

namespace attn::io {

namespace {

constexpr std::size_t key_hex = 64;

bool hex_digits(const std::string& s) {
    return s.size() == key_hex && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::array<unsigned char, 32> key_of(const std::string& hex) {
    std::array<unsigned char, 32> key{};
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<unsigned char>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    return key;
}

// The 64 hex digits of an existing key file, or "" when it is missing or not one.
std::string read_key(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return "";
    struct stat st {};
    std::string text(key_hex + 1, '\0');
    ssize_t got = -1;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == static_cast<off_t>(key_hex + 1))
        got = ::read(fd, &text[0], text.size());
    ::close(fd);
    if (got != static_cast<ssize_t>(key_hex + 1) || text.back() != '\n') return "";
    text.pop_back();
    return hex_digits(text) ? text : "";
}

// Creates the key file (O_EXCL: a key another attn made first wins) and returns its digits.
std::string make_key(const std::string& dir, const std::string& path) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string hex = random_hex(32);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd < 0) return errno == EEXIST ? read_key(path) : "";
    const std::string line = hex + "\n";
    const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    if (::close(fd) != 0 || !ok) {
        ::unlink(path.c_str());
        return "";
    }
    return hex;
}

std::array<unsigned char, 32> load_export_key() {
    const std::string dir = state_dir();
    std::string hex;
    if (!dir.empty()) {
        const std::string path = dir + "/export-key";
        hex = read_key(path);
        if (hex.empty()) {
            struct stat st {};
            if (::lstat(path.c_str(), &st) != 0) hex = make_key(dir, path);  // never over a foreign file
        }
    }
    return key_of(hex.empty() ? random_hex(32) : hex);
}

}  // namespace

std::string state_dir() {
    const char* state = std::getenv("XDG_STATE_HOME");
    if (state && state[0] == '/') return std::string(state) + "/attn";
    const char* home = std::getenv("HOME");
    if (home && home[0] == '/') return std::string(home) + "/.local/state/attn";
    return "";
}

const std::array<unsigned char, 32>& export_key() {
    static const std::array<unsigned char, 32> key = load_export_key();
    return key;
}

}  // namespace attn::io
