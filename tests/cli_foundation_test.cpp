// tests/cli_foundation_test.cpp — the real `attn` binary: exit codes, messages, colour.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/golden.hpp"

using namespace attn::testing;

namespace {

struct result {
    int code;
    std::string out;  // stdout and stderr together
};

result run_attn(const std::string& args, const std::string& env = "") {
    int code = -1;
    std::string out = run_command(env + (env.empty() ? "" : " ") + shell_quote(ATTN_BIN) + " " + args + " 2>&1", &code);
    return {code, out};
}

}  // namespace

TEST_CASE("attn lessons lists the numbered lessons with titles", "[cli]") {
    const auto r = run_attn("lessons");
    CHECK(r.code == 0);
    CHECK(r.out.find(" 1  Self-attention step by step") != std::string::npos);
    CHECK(r.out.find(" 4  Cross-attention: the worked example") != std::string::npos);
}

TEST_CASE("attn with no arguments prints help and the lessons", "[cli]") {
    const auto r = run_attn("");
    CHECK(r.code == 0);
    CHECK(r.out.find("Usage: attn") != std::string::npos);
    CHECK(r.out.find("Cross-attention: the worked example") != std::string::npos);
}

TEST_CASE("bad input exits with 2 and one message naming what was wrong", "[cli]") {
    auto [args, expected] = GENERATE(Catch::Generators::table<std::string, std::string>({
        {"lesson 99", "there is no lesson 99"},
        {"lesson 4 --token dog", "token 'dog' is not a query of run 'cross' (queries: The, cat, sat, on, mat"},
        {"lesson 4 --color sometimes", "--color"},
        {"lesson 4 --step 99 --no-pause", "--step 99 is out of range"},
        {"lesson 4 --token The --run nope", "has no run 'nope'"},
        {"lesson", "give a lesson number"},
        {"lesson check /nonexistent/lesson.toml", "/nonexistent/lesson.toml: cannot open the lesson file"},
        {"no-such-verb", "no-such-verb"},
    }));
    const auto r = run_attn(args);
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find(expected) != std::string::npos);
    CHECK(r.out.find("nan") == std::string::npos);
}

TEST_CASE("a malformed lesson file is reported with file, line and column", "[cli]") {
    const auto dir = std::filesystem::path(scratch_path("attn-cli-malformed"));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "03-broken.toml") << "number = 3\ntitle = \"broken\"\n[matrices]\nQ = [[1.0, 2.0], [3.0]]\n";
    const auto r = run_attn("lesson 3", "ATTN_LESSONS_DIR=" + shell_quote(dir.string()));
    CHECK(r.code == 2);
    CHECK(r.out.find("03-broken.toml:4:") != std::string::npos);
    CHECK(r.out.find("row 1 has 1 entries, expected 2") != std::string::npos);
    CHECK(r.out.find("a lesson needs at least one [[step]]") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("colour follows NO_COLOR and --color", "[cli]") {
    CHECK(run_attn("lesson 4 --no-pause", "NO_COLOR=1").out.find("\x1b[") == std::string::npos);
    CHECK(run_attn("lesson 4 --no-pause --color never").out.find("\x1b[") == std::string::npos);
    CHECK(run_attn("lesson 4 --no-pause --color always", "NO_COLOR=1").out.find("\x1b[") != std::string::npos);
    // Not a terminal (a pipe here): auto means no colour.
    CHECK(run_attn("lesson 4 --no-pause").out.find("\x1b[") == std::string::npos);
}

TEST_CASE("the trace of decoder token cat shows the seed's scores and weights", "[cli]") {
    const auto r = run_attn("lesson 4 --token cat --color never");
    CHECK(r.code == 0);
    for (const char* s : {"= 2.50", "= 0.00", "= 1.60", "= 0.90", "= 0.45", "= 0.3660 |##############|",
                          "= 0.1049", "= 0.2334", "= 0.1645", "= 0.1313"})
        CHECK(r.out.find(s) != std::string::npos);
}

TEST_CASE("a lesson started with --step K begins at step K", "[cli]") {
    const auto r = run_attn("lesson 4 --no-pause --step 8 --color never");
    CHECK(r.code == 0);
    CHECK(r.out.find("Step 8/10") != std::string::npos);
    CHECK(r.out.find("Step 7/10") == std::string::npos);
}
