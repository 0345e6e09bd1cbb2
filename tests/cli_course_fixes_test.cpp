// tests/cli_course_fixes_test.cpp — each error of the lesson text that issue 11
// listed, checked in what the real `attn` prints: the float16 claim, the −1e5
// table's title, pre-norm wording, the "Reading" tables' own shape, no blocked
// runner-up, the decoder block's cross-attention weights, 4d against 5d, the
// ALiBi vector, "for random vectors", --step 0, --step with --token, and one
// indexing convention.
#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "support/golden.hpp"

using namespace attn::testing;

namespace {

std::string attn_out(const std::string& args, int* code = nullptr) {
    int c = -1;
    const std::string out = run_command("COLUMNS=80 " + shell_quote(ATTN_BIN) + " " + args + " 2>&1", &c);
    if (code) *code = c;
    return out;
}

bool has(const std::string& text, const std::string& pattern) { return std::regex_search(text, std::regex(pattern)); }

}  // namespace

TEST_CASE("lesson 03 no longer says -1e5 fits in float16 and titles its table with the constant", "[cli][course]") {
    const std::string out = attn_out("lesson 3 --step 8 --no-pause --color never");
    CHECK_FALSE(has(out, "fits even in float16"));
    CHECK(has(out, "65504"));
    CHECK(has(out, "−100000 where blocked"));
    // The table holding -100000.000 is not titled "-inf where blocked".
    const auto at = out.find("-100000.000");
    REQUIRE(at != std::string::npos);
    const auto title = out.rfind("Causal self-attention", at);
    CHECK(out.substr(title, at - title).find("-inf") == std::string::npos);
}

TEST_CASE("lesson 10's pre-norm table says the stream is the residual sum, not after Add & Norm", "[cli][course]") {
    const std::string out = attn_out("lesson 10 --step 6 --no-pause --color never --width 200");
    CHECK(has(out, "stream\\[The\\] after the residual addition"));
    CHECK_FALSE(has(out, "Pre-norm[^\\n]*\\n[^\\n]*after Add & Norm"));
    const std::string post = attn_out("lesson 10 --step 5 --no-pause --color never --width 200");
    CHECK(has(attn_out("lesson 10 --no-pause --color never --width 200"), "after Add & Norm"));
    (void)post;
}

TEST_CASE("a Reading table prints the shape of the weights it reads and never a blocked key as runner-up",
          "[cli][course]") {
    const std::string five = attn_out("lesson 5 --no-pause --color never --width 200");
    CHECK(has(five, "where each target token looks  \\[2 × 3\\]"));
    CHECK(has(five, "Hello I love you: where each query looks  \\[4 × 4\\]"));
    CHECK_FALSE(has(five, "Hello I love you: where each query looks  \\[4 × 5\\]"));  // a second shape of 4 × 4 weights
    const std::string six = attn_out("lesson 6 --no-pause --color never --width 200");
    CHECK(has(six, "\\n  Le +The +1\\.0000 +none +— +1\\.0000"));
    CHECK_FALSE(has(six, "then at[^\\n]*\\n(?:[^\\n]*\\n)*?[^\\n]* 0\\.0000 +1\\.0000\\n"));
}

TEST_CASE("attn shapes decoder_block lists cross-attention's own weights, W_o included", "[cli][course]") {
    const std::string out = attn_out("shapes decoder_block --color never --width 200");
    CHECK(has(out, "W_cross\\^\\(q\\), W_cross\\^\\(k\\) +d × d_q"));
    CHECK(has(out, "W_cross\\^\\(v\\) +d × d_v"));
    CHECK(has(out, "W_cross\\^\\(o\\) +d_v × d"));
}

TEST_CASE("the lessons explain 4d against the notes' 5d and the notes' ALiBi vector", "[cli][course]") {
    CHECK(has(attn_out("lesson 10 --no-pause --color never --width 200"), "R\\^\\(5d×d\\), a hidden width of 5d"));
    const std::string eight = attn_out("lesson 8 --no-pause --color never --width 200");
    CHECK(has(eight, "n \\+ 1 entries, one too many"));
    CHECK(has(eight, "−\\|i − j\\|"));
}

TEST_CASE("lesson 01 says dot products grow like the square root of d for random vectors and states the counting once",
          "[cli][course]") {
    const std::string out = attn_out("lesson 1 --no-pause --color never --width 200");
    CHECK(has(out, "For random vectors[^\\n]*\\n?[^\\n]*grow like √d"));
    CHECK(has(out, "numbered from 0, as in NumPy"));
}

TEST_CASE("A lesson refuses --step 0 and --step with --token with words a student reads", "[cli][course]") {
    int code = 0;
    const std::string zero = attn_out("lesson 1 --step 0 --no-pause", &code);
    CHECK(code == 2);
    CHECK(has(zero, "--step 0 is out of range: lesson 01 has steps 1\\.\\.6"));
    CHECK_FALSE(has(zero, "1797693"));
    const std::string both = attn_out("lesson 4 --step 2 --token cat", &code);
    CHECK(code == 2);
    CHECK(has(both, "--step and --token do not go together"));
    CHECK(attn_out("lesson 4 --token cat --color never", &code).find("trace") != std::string::npos);
    CHECK(code == 0);
}

TEST_CASE("every lesson keeps lesson 01's counting: positions from 0, heads and layers from 1", "[cli][course]") {
    for (int n = 1; n <= 19; ++n) {
        const std::string out = attn_out("lesson " + std::to_string(n) + " --no-pause --color never --width 200");
        INFO("lesson " << n);
        CHECK_FALSE(has(out, "\\b(?:[Hh]eads?|K/V head|[Ll]ayer) 0\\b"));
        CHECK_FALSE(has(out, "counted from 1(?!, as the notes count them)"));  // only where quoting the notes
    }
    const std::string eight = attn_out("lesson 8 --no-pause --color never --width 200");
    CHECK(has(eight, "\"oven\" at position 1 differs from \"oven\" at position 4"));
    CHECK(has(eight, "\\n  0 +[-0-9.]+ +[-0-9.]+ +[-0-9.]+ +[-0-9.]+\\n  1 "));  // P's rows are positions 0 … 5
    const std::string eighteen = attn_out("lesson 18 --no-pause --color never --width 200");
    CHECK(has(eighteen, "query head → key/value head: 1 → 1, 2 → 1, 3 → 2, 4 → 2"));
    CHECK(has(eighteen, "query head 3 reads columns 2–3 of K and V \\(K/V head 2\\)"));
}
