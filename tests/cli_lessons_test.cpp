// tests/cli_lessons_test.cpp — the lesson verbs from the outside: listing,
// --step, pausing only on a terminal (driven through a pseudo-terminal with
// util-linux `script`), quitting with q, and `lesson check` exit codes.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/golden.hpp"

using namespace attn::testing;

namespace {

std::string attn_cmd(const std::string& args) { return shell_quote(ATTN_BIN) + " " + args; }

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
    return n;
}

bool have_script() {
    int code = -1;
    run_command("command -v script >/dev/null 2>&1", &code);
    return code == 0;
}

// Runs `attn args` on a pseudo-terminal, typing `keys` into it.
std::string on_terminal(const std::string& args, const std::string& keys, int* code) {
    return run_command("printf '" + keys + "' | timeout 30 script -qec " + shell_quote(attn_cmd(args)) +
                           " /dev/null 2>&1 | tr -d '\\r'",
                       code);
}

}  // namespace

TEST_CASE("attn lessons lists the curriculum lessons by number", "[cli][lessons]") {
    int code = -1;
    const std::string out = run_command(attn_cmd("lessons"), &code);
    CHECK(code == 0);
    CHECK(out.find(" 3  Causal (masked) self-attention") != std::string::npos);
    CHECK(out.find(" 5  Different lengths") != std::string::npos);
    CHECK(out.find(" 6  Padding masks") != std::string::npos);
    CHECK(out.find("14  Cross-attention beyond text") != std::string::npos);
}

TEST_CASE("lesson --step K starts at step K and skips the introduction", "[cli][lessons]") {
    int code = -1;
    const std::string out = run_command(attn_cmd("lesson 3 --step 5 --no-pause --color never"), &code);
    CHECK(code == 0);
    CHECK(out.find("Step 5/10") != std::string::npos);
    CHECK(out.find("Step 4/10") == std::string::npos);
    CHECK(out.find("A language model writes") == std::string::npos);
    CHECK(out.find("Step 10/10") != std::string::npos);
}

TEST_CASE("a --step outside the lesson and unknown lessons exit 2 with a message", "[cli][lessons]") {
    int code = -1;
    std::string out = run_command(attn_cmd("lesson 3 --step 11 --no-pause 2>&1"), &code);
    CHECK(code == 2);
    CHECK(out.find("--step 11 is out of range: lesson 03 has steps 1..10") != std::string::npos);
    out = run_command(attn_cmd("lesson 99 2>&1"), &code);
    CHECK(code == 2);
    CHECK(out.find("there is no lesson 99") != std::string::npos);
    out = run_command(attn_cmd("lesson 3 --step 0 2>&1"), &code);
    CHECK(code == 2);
}

TEST_CASE("a lesson never pauses when stdout is not a terminal", "[cli][lessons]") {
    int code = -1;
    const std::string out = run_command("printf 'q\\n' | " + attn_cmd("lesson 6 --color never"), &code);
    CHECK(code == 0);
    CHECK(out.find("[step") == std::string::npos);
    CHECK(out.find("Step 8/8") != std::string::npos);
}

TEST_CASE("on a terminal the intro is a page, Enter goes on and q quits with the way back", "[cli][lessons]") {
    if (!have_script()) {
        WARN("util-linux `script` is missing: the pseudo-terminal tests cannot run");
        return;
    }
    int code = -1;
    std::string out = on_terminal("lesson 3 --no-pager --color never", "\\nq", &code);
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("[intro · Enter: step 1 · a: answer · ?: keys · q: quit]") != std::string::npos);
    CHECK(out.find("[step 1/10 · Enter: next · p: back · a: answer · ?: keys · q: quit]") != std::string::npos);
    CHECK(out.find("Step 1/10") != std::string::npos);
    CHECK(out.find("Step 2/10") == std::string::npos);
    CHECK(out.find("stopped after step 1 of 10; go on later with `attn lesson 3 --step 2`") != std::string::npos);
    CHECK(count(out, "[step ") == 1);
}

TEST_CASE("on a terminal --step K pauses from K on and end of input stops", "[cli][lessons]") {
    if (!have_script()) {
        WARN("util-linux `script` is missing: the pseudo-terminal tests cannot run");
        return;
    }
    int code = -1;
    std::string out = on_terminal("lesson 3 --step 9 --no-pager --color never", "\\004", &code);  // Ctrl-D
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("Step 9/10") != std::string::npos);
    CHECK(out.find("Step 8/10") == std::string::npos);
    CHECK(out.find("stopped after step 9 of 10; go on later with `attn lesson 3 --step 10`") != std::string::npos);
    // --no-pause wins on a terminal too.
    out = on_terminal("lesson 3 --step 9 --no-pause --color never", "", &code);
    CHECK(out.find("[step") == std::string::npos);
    CHECK(out.find("Step 10/10") != std::string::npos);
}

TEST_CASE("lesson check passes sound files and lists every problem of a broken one", "[cli][lessons]") {
    int code = -1;
    std::string out = run_command(attn_cmd("lesson check " + shell_quote((std::string(ATTN_SOURCE_DIR) + "/lessons/03-causal-attention.toml"))), &code);
    CHECK(code == 0);
    CHECK(out.find("ok (lesson 3, 10 steps") != std::string::npos);

    const auto path = scratch_path("attn-cli-broken-lesson.toml");
    std::ofstream(path) << "number = 7\ntitel = \"x\"\n[[step]]\ntitle = \"s\"\n[[step.show]]\nkind = \"stgae\"\n";
    out = run_command(attn_cmd("lesson check " + shell_quote(path) + " 2>&1"), &code);
    std::remove(path.c_str());
    INFO(out);
    CHECK(code == 2);
    CHECK(out.find(path + ":1:1: missing key 'title'") != std::string::npos);
    CHECK(out.find(path + ":2:1: unknown key 'titel'") != std::string::npos);
    CHECK(out.find(path + ":6:8: show kind 'stgae': unknown kind (did you mean 'stage'?)") != std::string::npos);
    CHECK(out.find(path + ": 3 problems") != std::string::npos);
}

TEST_CASE("attn shapes refuses partial numbers, unknown tables and indivisible heads", "[cli][lessons]") {
    int code = -1;
    std::string out = run_command(attn_cmd("shapes cross --B 2 2>&1"), &code);
    CHECK(code == 2);
    CHECK(out.find("missing --n_tgt, --d, --n_src, --d_q, --d_v") != std::string::npos);
    out = run_command(attn_cmd("shapes kross 2>&1"), &code);
    CHECK(code == 2);
    out = run_command(attn_cmd("shapes cross --B 2 --n_tgt 3 --n_src 5 --d 8 --H 3 2>&1"), &code);
    CHECK(code == 2);
    CHECK(out.find("--d 8 is not divisible by --H 3") != std::string::npos);
    out = run_command(attn_cmd("shapes ffn --B 1 --n 2 --d 3 --d_ff 12 --n_src 4 2>&1"), &code);
    CHECK(code == 2);
    CHECK(out.find("does not use --n_src") != std::string::npos);
    out = run_command(attn_cmd("shapes --list"), &code);
    CHECK(code == 0);
    CHECK(out.find("decoder_block") != std::string::npos);
}
