// tests/lessons_check_test.cpp — `lesson check` finds every problem of a broken
// lesson file, each at its own file:line:col, with the closest known name.
#include <catch2/catch.hpp>

#include "support/golden.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/toml_read.hpp"
#include "lessons/lesson_loader.hpp"
#include "lessons/lesson_render.hpp"

using namespace attn::lessons;
using namespace attn::io;

namespace {

// A small sound lesson; tests break one line of it at a time.
const std::string sound = R"(number = 90
title = "Scratch"

[tokens]
words = ["a", "b"]

[matrices]
Q = [[1.0, 0.0], [0.0, 1.0]]

[derived.Q2]
op = "scale_columns"
of = "Q"
by = [1.0, 2.0]

[runs.self]
q = "Q2"
k = "Q"
v = "Q"
query_tokens = "words"
key_tokens = "words"

[[step]]
title = "One"
[[step.show]]
kind = "stage"
run = "self"
stage = "weights"
)";

std::vector<diagnostic> check_text(const std::string& text) {
    const auto path = attn::testing::scratch_path("attn-lesson-check-test.toml");
    std::ofstream(path, std::ios::binary) << text;
    auto problems = check_lesson_file(path);
    std::remove(path.c_str());
    for (auto& p : problems) p.where.file = "x.toml";
    return problems;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto pos = text.find(from);
    REQUIRE(pos != std::string::npos);
    return text.replace(pos, from.size(), to);
}

std::string all(const std::vector<diagnostic>& ps) {
    std::string s;
    for (const auto& p : ps) s += p.str() + "\n";
    return s;
}

}  // namespace

TEST_CASE("a sound lesson has no problems", "[lessons][check]") { CHECK(check_text(sound).empty()); }

TEST_CASE("each kind of mistake is reported at its line and column with a hint", "[lessons][check]") {
    struct bad_case {
        std::string from, to, expected;
    };
    auto c = GENERATE(values<bad_case>({
        {"title = \"Scratch\"", "titel = \"Scratch\"",
         "x.toml:2:1: unknown key 'titel' in the lesson's top level (did you mean 'title'?"},
        {"op = \"scale_columns\"", "op = \"scale_colums\"", "x.toml:11:6: unknown op 'scale_colums' (did you mean 'scale_columns'?)"},
        {"of = \"Q\"", "of = \"Qq\"", "x.toml:12:6: 'Qq' is not a matrix of this lesson (did you mean 'Q'?"},
        {"key_tokens = \"words\"", "key_tokens = \"word\"",
         "x.toml:20:14: 'key_tokens' names token list 'word', which is not in [tokens] (did you mean 'words'?)"},
        {"v = \"Q\"", "v = \"Q\"\nmaskd_fill = -1e5", "x.toml:19:1: unknown key 'maskd_fill' in [runs.self] (did you mean 'masked_fill'?"},
        {"kind = \"stage\"", "kind = \"stgae\"", "x.toml:25:8: show kind 'stgae': unknown kind (did you mean 'stage'?)"},
        {"run = \"self\"", "run = \"slef\"", "x.toml:26:7: show kind 'stage': run 'slef' is not in [runs] (did you mean 'self'?)"},
        {"stage = \"weights\"", "stage = \"weight\"", "x.toml:27:9: show kind 'stage': unknown stage 'weight' (did you mean 'weights'?)"},
        {"stage = \"weights\"", "stage = \"weights\"\ndecimal = 3",
         "x.toml:28:1: unknown key 'decimal' in a [[step.show]] of kind 'stage' (did you mean 'decimals'?"},
        {"stage = \"weights\"", "stage = \"weights\"\ndecimals = \"3\"",
         "x.toml:28:12: show kind 'stage': 'decimals' must be a whole number from 0 to 8, found a string"},
        {"stage = \"weights\"", "stage = \"weights\"\ndecimals = 12",
         "x.toml:28:12: show kind 'stage': 'decimals' must be a whole number from 0 to 8, found 12"},
        {"by = [1.0, 2.0]", "by = [1.0, 2.0, 3.0]", "x.toml:13:6: 'by' has 3 factors but 'Q' has 2 columns"},
        {"[matrices]\nQ = [[1.0, 0.0], [0.0, 1.0]]", "[matrices]\nQ = [[1.0, 0.0], [0.0]]",
         "x.toml:8:18: matrix 'Q' row 1 has 1 entries, expected 2 like row 0"},
        {"title = \"One\"", "title = \"One", "x.toml:23:"},
    }));
    INFO("changed: " << c.to);
    const auto problems = check_text(replaced(sound, c.from, c.to));
    REQUIRE_FALSE(problems.empty());
    INFO(all(problems));
    CHECK(all(problems).find(c.expected) != std::string::npos);
}

TEST_CASE("the show kinds that write out the documents' material refuse bad keys at their line", "[lessons][check]") {
    struct bad_case {
        std::string show, expected;
    };
    auto c = GENERATE(values<bad_case>({
        {"kind = \"weighted_sum\"\nrun = \"self\"\ntoken = \"c\"",
         "x.toml:27:9: show kind 'weighted_sum': token 'c' is not a query of run 'self' (queries: a, b"},
        {"kind = \"cross_cost\"\nsizes = [[100, 500], [3]]\nd = 64",
         "x.toml:26:9: show kind 'cross_cost': 'sizes' must hold [N_dec, N_enc] pairs"},
        {"kind = \"cross_cost\"\nsizes = [[100, 0]]\nd = 64",
         "x.toml:26:9: show kind 'cross_cost': 'sizes' must hold whole numbers from 1 to 10000000"},
        {"kind = \"cross_cost\"\nsizes = [[100, 500]]", "x.toml:24:1: show kind 'cross_cost' needs 'd'"},
        {"kind = \"heatmap\"", "show kind 'heatmap': needs 'run' (a run's stage) or 'matrix'"},
        {"kind = \"heatmap\"\nrun = \"self\"\nmatrix = \"Q\"\nrows = \"words\"\ncolumns = \"words\"",
         "x.toml:27:10: show kind 'heatmap': give 'run' (and 'stage') or 'matrix' (with 'rows' and 'columns'), not both"},
        {"kind = \"heatmap\"\nmatrix = \"Q\"\nrows = \"words\"",
         "show kind 'heatmap': needs 'columns' (a string)"},
    }));
    const std::string text = replaced(sound, "kind = \"stage\"\nrun = \"self\"\nstage = \"weights\"\n", c.show + "\n");
    INFO(text);
    const auto problems = check_text(text);
    REQUIRE_FALSE(problems.empty());
    INFO(all(problems));
    CHECK(all(problems).find(c.expected) != std::string::npos);
}

TEST_CASE("every problem of a file is reported, in file order, without cascades", "[lessons][check]") {
    std::string text = replaced(sound, "title = \"Scratch\"", "titel = \"Scratch\"");
    text = replaced(text, "of = \"Q\"", "of = \"Qq\"");  // breaks Q2, hence run self
    text = replaced(text, "stage = \"weights\"", "stage = \"weights\"\n[[step.show]]\nkind = \"trace\"\nrun = \"nope\"\ntoken = \"a\"");
    const auto problems = check_text(text);
    INFO(all(problems));
    REQUIRE(problems.size() == 4);
    CHECK(problems[0].message == "missing key 'title' (expected a string)");  // the typo leaves no title
    CHECK(problems[1].where.line == 2);
    CHECK(problems[2].where.line == 12);
    CHECK(problems[3].where.line == 30);
    CHECK(problems[3].message.find("run 'nope' is not in [runs]") != std::string::npos);
    // The item that shows run 'self' (broken through Q2) is not reported again.
    CHECK(all(problems).find("'self'") == std::string::npos);
}

TEST_CASE("a cycle among derived matrices and runs is named", "[lessons][check]") {
    std::string text = replaced(sound, "of = \"Q\"", "of = \"self.output\"");
    const auto problems = check_text(text);
    INFO(all(problems));
    REQUIRE(problems.size() >= 1);
    CHECK(all(problems).find("depends on itself") != std::string::npos);
}

TEST_CASE("a run's stage can feed a derived matrix", "[lessons][check]") {
    std::string text = sound + R"(
[derived.twice]
op = "add"
a = "self.output"
b = "self.output"

[[step]]
title = "Two"
[[step.show]]
kind = "matrix"
matrix = "twice"
decimals = 4
)";
    CHECK(check_text(text).empty());
}

TEST_CASE("the closest known word is suggested only for near misses", "[lessons][check]") {
    CHECK(edit_distance("stgae", "stage") == 1);
    CHECK(edit_distance("", "abc") == 3);
    CHECK(closest_word("decimal", {"decimals", "title"}) == "decimals");
    CHECK(closest_word("zebra", {"decimals", "title"}).empty());
}

TEST_CASE("a lesson's number must match the number in its file name", "[lessons][check]") {
    const auto path = attn::testing::scratch_path("07-misnumbered.toml");
    std::ofstream(path, std::ios::binary) << sound;  // says number = 90
    const auto problems = check_lesson_file(path);
    std::remove(path.c_str());
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].where.line == 1);
    CHECK(problems[0].message == "'number' is 90 but the file name says lesson 07");
}

TEST_CASE("a misspelt piece of a block is reported with the closest piece", "[lessons][check]") {
    std::string text = sound + R"(
[blocks.mh]
kind = "multi_head"
x = "Q"
w_q = "Q"
w_k = "Q"
w_v = "Q"
w_o = "Q"
heads = 1
query_tokens = "words"
key_tokens = "words"

[derived.after]
op = "add"
a = "mh.outptu"
b = "Q"
)";
    const auto problems = check_text(text);
    INFO(all(problems));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].message == "block 'mh' has no matrix 'mh.outptu' (did you mean 'mh.output'?)");
    CHECK(problems[0].where.line == 42);
}
