// tests/support/golden.cpp — see golden.hpp.
#include "support/golden.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <filesystem>

#include <sys/wait.h>
#include <unistd.h>

namespace attn::testing {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// One scratch folder per test process, removed when the process ends (ctest runs each
// test case in a process of its own), so runs leave nothing behind in the temp folder.
std::string scratch_path(const std::string& name) {
    struct scratch_folder {
        std::filesystem::path dir =
            std::filesystem::temp_directory_path() / ("attn-test-" + std::to_string(::getpid()));
        ~scratch_folder() {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
        }
    };
    static const scratch_folder scratch;
    std::filesystem::create_directories(scratch.dir);
    return (scratch.dir / name).string();
}

std::string shell_quote(const std::string& arg) {
    std::string q = "'";
    for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string run_command(const std::string& command, int* exit_code) {
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot run " + command);
    std::string out;
    std::array<char, 4096> buf{};
    std::size_t n = 0;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
    const int status = pclose(pipe);
    if (exit_code) *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

golden_result check_golden(const std::string& golden_path, const std::string& actual) {
    const char* bless = std::getenv("ATTN_BLESS");
    const char* ci = std::getenv("CI");
    if (bless && std::string(bless) == "1") {
        if (ci && *ci) throw std::runtime_error("refusing to bless goldens: CI is set");
        std::ofstream(golden_path, std::ios::binary) << actual;
        return {true, ""};
    }
    std::string expected;
    try {
        expected = read_file(golden_path);
    } catch (const std::exception&) {
        expected = "";
    }
    if (expected == actual) {
        std::remove((golden_path.substr(0, golden_path.size() - 4) + ".received.txt").c_str());
        return {true, ""};
    }
    const std::string received = golden_path.substr(0, golden_path.size() - 4) + ".received.txt";
    std::ofstream(received, std::ios::binary) << actual;
    golden_result r;
    r.report = "golden mismatch: " + golden_path + "\n" +
               run_command("diff -u " + shell_quote(golden_path) + " " + shell_quote(received) + " 2>&1", nullptr) +
               "\nreceived output written to " + received +
               "\nif the change is intended, bless it with: tools/bless-goldens (then review `git diff golden/`)\n";
    return r;
}

}  // namespace attn::testing
