// io/mapped_file.cpp — see mapped_file.hpp. io::input_file does the checks and the
// registration (and words the refusals); the file is then opened once more to map
// it, and that descriptor is checked to be the same regular file of the same size.
// A file cut short by another program while it is mapped (a re-download over it) makes
// a read past its new end raise SIGBUS: the handler below names the file and exits 2
// instead of the signal killing attn without a word.
#include "io/mapped_file.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/input_read.hpp"

namespace attn::io {

namespace {

// The live mappings, for the SIGBUS handler (async-signal-safe: fixed slots, atomics).
struct mapping_slot {
    std::atomic<const unsigned char*> begin{nullptr};
    std::atomic<std::size_t> size{0};
    char name[512] = {};
};
constexpr int max_mappings = 32;
mapping_slot mappings[max_mappings];

void write_all(const char* s) {
    for (std::size_t n = std::strlen(s); n > 0;) {
        const ssize_t w = ::write(STDERR_FILENO, s, n);
        if (w <= 0) return;
        s += w, n -= static_cast<std::size_t>(w);
    }
}

extern "C" void on_sigbus(int sig, siginfo_t* info, void*) {
    const auto* at = static_cast<const unsigned char*>(info->si_addr);
    for (auto& m : mappings) {
        if (info->si_code <= 0) break;  // sent by kill/raise, not a fault: no address
        const unsigned char* b = m.begin.load();
        if (b != nullptr && at >= b && at < b + m.size.load()) {
            write_all("attn: ");
            write_all(m.name);
            write_all(": the file changed while attn was reading it (cut short or rewritten in place, as a "
                      "download over it does); run again once it is complete\n");
            ::_exit(2);
        }
    }
    ::signal(sig, SIG_DFL);  // not one of ours: the default action
    ::raise(sig);
}

void install_sigbus_handler() {
    static const bool installed = [] {
        struct sigaction sa {};
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        return ::sigaction(SIGBUS, &sa, nullptr) == 0;
    }();
    (void)installed;
}

// A slot for a new mapping (its name made printable: the handler writes it raw), or -1.
int track_mapping(const unsigned char* data, std::size_t size, const std::string& name) {
    install_sigbus_handler();
    for (int i = 0; i < max_mappings; ++i) {
        const unsigned char* expected = nullptr;
        auto& m = mappings[i];
        if (m.begin.load() != nullptr) continue;
        std::size_t n = 0;
        for (char c : name) {
            if (n + 1 >= sizeof m.name) break;
            const auto u = static_cast<unsigned char>(c);
            m.name[n++] = (u < 0x20 || u >= 0x7f) ? '?' : c;  // ASCII only: written raw
        }
        m.name[n] = '\0';
        m.size.store(size);
        if (m.begin.compare_exchange_strong(expected, data)) return i;
    }
    return -1;
}

}  // namespace

mapped_file::mapped_file(const std::string& path, const std::string& what) : name_(path) {
    if (path == "-")
        throw input_error("not-a-file", source_pos{stdin_name, 0, 0},
                          "cannot read the " + what + " from standard input: give its file name");
    input_file checked(path, what);  // regular file, registered as an input
    const source_pos at{path, 0, 0};
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<std::size_t>(st.st_size) != checked.size()) {
        const int err = errno;
        if (fd >= 0) ::close(fd);
        throw input_error("unreadable", at, "the " + what + " changed while it was opened" +
                                                (fd < 0 ? std::string(" (") + std::strerror(err) + ")" : ""));
    }
    size_ = checked.size();
    if (size_ == 0) {
        ::close(fd);
        return;
    }
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);  // the mapping keeps the file
    if (p == MAP_FAILED)
        throw input_error("unreadable", at, "cannot map the " + what + " into memory (" + std::strerror(err) + ")");
    data_ = static_cast<const unsigned char*>(p);
    slot_ = track_mapping(data_, size_, path);
}

void mapped_file::release(std::size_t begin, std::size_t end) const {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t first = (begin + page - 1) / page * page, last = std::min(end, size_) / page * page;
    if (data_ != nullptr && first < last) ::madvise(const_cast<unsigned char*>(data_) + first, last - first, MADV_DONTNEED);
}

mapped_file::~mapped_file() {
    if (slot_ >= 0) mappings[slot_].begin.store(nullptr);
    if (data_ != nullptr) ::munmap(const_cast<unsigned char*>(data_), size_);
}

}  // namespace attn::io
