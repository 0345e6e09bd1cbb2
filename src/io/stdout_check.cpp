// io/stdout_check.cpp — see stdout_check.hpp. std::cout shares stdio's buffer
// (sync_with_stdio), so stdout's error flag sees every failed write.
#include "io/stdout_check.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <fcntl.h>
#include <unistd.h>

namespace attn::io {

int finish_stdout(int code) {
    errno = 0;
    std::cout.flush();
    const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout;
    if (!failed) return code;
    int err = errno;
    if (err == EPIPE) return code;
    if (::fcntl(STDOUT_FILENO, F_GETFD) == -1 && errno == EBADF) err = EBADF;  // `>&-`: not a full disk
    std::fprintf(stderr, "attn: cannot write to standard output: %s\n",
                 err == EBADF ? "it is closed" : err != 0 ? std::strerror(err) : "write error (disk full?)");
    return 2;
}

}  // namespace attn::io
