// io/mapped_file.cpp — see mapped_file.hpp. io::input_file does the checks and the
// registration (and words the refusals); the file is then opened once more to map
// it, and that descriptor is checked to be the same regular file of the same size.
#include "io/mapped_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/input_read.hpp"

namespace attn::io {

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
}

void mapped_file::release(std::size_t begin, std::size_t end) const {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t first = (begin + page - 1) / page * page, last = std::min(end, size_) / page * page;
    if (data_ != nullptr && first < last) ::madvise(const_cast<unsigned char*>(data_) + first, last - first, MADV_DONTNEED);
}

mapped_file::~mapped_file() {
    if (data_ != nullptr) ::munmap(const_cast<unsigned char*>(data_), size_);
}

}  // namespace attn::io
