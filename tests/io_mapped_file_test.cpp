// tests/io_mapped_file_test.cpp — a mapped input cut short by another program while
// attn reads it (a re-download over a checkpoint) ends in a clear message and exit 2,
// not a SIGBUS that kills attn without a word (io/mapped_file's handler).
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "io/mapped_file.hpp"
#include "support/golden.hpp"

namespace {

// Runs `body` in a child process; returns its exit status and what it wrote to stderr.
template <class F>
std::pair<int, std::string> in_child(F body) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::dup2(fds[1], STDERR_FILENO);
        ::close(fds[0]);
        body();
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string err;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return {status, err};
}

}  // namespace

TEST_CASE("a mapped file cut short while it is read is named and exits 2", "[io][mapped]") {
    const std::string dir = attn::testing::scratch_path("mapped-truncated");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/weights\x1b]0;x\x07.bin";
    std::ofstream(path, std::ios::binary) << std::string(3 * 65536, 'w');
    const auto [status, err] = in_child([&] {
        const attn::io::mapped_file f(path, "checkpoint");
        REQUIRE(::truncate(path.c_str(), 10) == 0);
        volatile unsigned char c = f.data()[f.size() - 1];  // past the new end: SIGBUS
        (void)c;
    });
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK_THAT(err, Catch::Contains("the file changed while attn was reading it"));
    CHECK(err.find('\x1b') == std::string::npos);
    CHECK(err.find('\x07') == std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a SIGBUS outside attn's mappings keeps its default action", "[io][mapped]") {
    const std::string dir = attn::testing::scratch_path("mapped-other");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/weights.bin";
    std::ofstream(path, std::ios::binary) << std::string(4096, 'w');
    const auto [status, err] = in_child([&] {
        const attn::io::mapped_file f(path, "checkpoint");  // the handler is installed
        ::raise(SIGBUS);  // not a fault in a mapping of attn's
    });
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGBUS);
    CHECK(err.find("changed while attn was reading") == std::string::npos);
    std::filesystem::remove_all(dir);
}
