// tests/lessons_loader_test.cpp — lesson files: what loads, and how problems are reported.
#include <catch2/catch.hpp>

#include "lessons/lesson_loader.hpp"
#include "lessons/lesson_render.hpp"

using namespace attn::lessons;

namespace {

const char* minimal = R"(number = 7
title = "t"
[tokens]
w = ["a", "b"]
[matrices]
Q = [[1.0, 0.0], [0.0, 1.0]]
[runs.r]
q = "Q"
k = "Q"
v = "Q"
query_tokens = "w"
key_tokens = "w"
[[step]]
title = "s"
[[step.show]]
kind = "stage"
run = "r"
stage = "weights"
)";

std::string problems_of(const std::string& text) {
    try {
        load_lesson_text(text, "x.toml");
    } catch (const lesson_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a minimal lesson loads and computes its run", "[lessons]") {
    const lesson l = load_lesson_text(minimal, "x.toml");
    CHECK(l.number == 7);
    REQUIRE(l.runs.count("r") == 1);
    CHECK(l.runs.at("r").steps.weights.shape(0) == 2);
    CHECK(l.primary_run == "r");
    CHECK(check_show_items(l).empty());
}

TEST_CASE("a TOML syntax error is reported with file, line and column", "[lessons]") {
    const std::string msg = problems_of("number = 1\ntitle = \"x\nfoo");
    CHECK(msg.rfind("x.toml:2:", 0) == 0);
    CHECK(msg.find("TOML syntax") != std::string::npos);
}

TEST_CASE("every problem of a lesson is reported, each with its location", "[lessons]") {
    std::string text = minimal;
    text.replace(text.find("number = 7"), 10, "number = \"seven\"");
    text.replace(text.find("Q = [[1.0, 0.0], [0.0, 1.0]]"), 28, "Q = [[1.0, 0.0], [0.0]]\nK = [[1.0, \"x\"]]");
    const std::string msg = problems_of(text);
    CHECK(msg.find("x.toml:1:") != std::string::npos);
    CHECK(msg.find("'number' must be a positive integer") != std::string::npos);
    CHECK(msg.find("row 1 has 1 entries, expected 2") != std::string::npos);
    CHECK(msg.find("must hold numbers only, found a string") != std::string::npos);
}

TEST_CASE("a mask without a named polarity is refused", "[lessons][mask]") {
    std::string text = minimal;
    text.replace(text.find("key_tokens = \"w\""), 16, "key_tokens = \"w\"\nmask = [[1, 0], [1, 1]]");
    CHECK(problems_of(text).find("must name its polarity") != std::string::npos);
    std::string ok = minimal;
    ok.replace(ok.find("key_tokens = \"w\""), 16, "key_tokens = \"w\"\nmask.block = [[false, true], [false, false]]");
    const lesson l = load_lesson_text(ok, "x.toml");
    CHECK(l.runs.at("r").steps.weights(0, 1) == 0.0);
    CHECK(l.runs.at("r").steps.weights(0, 0) == 1.0);
}

TEST_CASE("shapes that do not chain in a run are reported with the run's name", "[lessons]") {
    std::string text = minimal;
    text.replace(text.find("[runs.r]"), 8, "K3 = [[1.0, 0.0, 1.0]]\n[runs.r]");
    text.replace(text.find("k = \"Q\""), 7, "k = \"K3\"");
    const std::string msg = problems_of(text);
    CHECK(msg.find("run 'r': K has d_k = 3 but Q has d_k = 2") != std::string::npos);
}

TEST_CASE("a show item naming an unknown stage stops the load at its key", "[lessons]") {
    std::string text = minimal;
    text.replace(text.find("stage = \"weights\""), 17, "stage = \"wieghts\"");
    const lesson_draft d = load_lesson_draft(text, "x.toml");  // the kind's check runs at load
    REQUIRE(d.problems.size() == 1);
    CHECK(d.problems[0].str().rfind("x.toml:18:9: show kind 'stage': unknown stage 'wieghts'", 0) == 0);
    CHECK_THROWS_AS(load_lesson_text(text, "x.toml"), lesson_error);
}

TEST_CASE("the token trace accepts a token or an index and names the tokens when wrong", "[lessons]") {
    const lesson l = load_lesson_text(minimal, "x.toml");
    CHECK(render_token_trace(l, "b", "", attn::trace::style{}).find("'b'") != std::string::npos);
    CHECK(render_token_trace(l, "1", "", attn::trace::style{}).find("'b'") != std::string::npos);
    CHECK_THROWS_WITH(render_token_trace(l, "z", "", attn::trace::style{}), Catch::Contains("queries: a, b"));
}
