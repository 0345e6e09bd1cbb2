// tests/grade_answers_test.cpp — reading answer files (JSON and TOML, with line:col
// for every value) and refusing what is not gradable (NumPy's tolerance rule: core_tolerance_test.cpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "grade/submission.hpp"

using namespace attn;
using namespace attn::grade;

TEST_CASE("JSON answers keep the line and column of every value", "[grade]") {
    const std::string text = "{\n  \"student\": \"ana\",\n  \"04-x\": {\"raw\": [1, -2.5e-1, \"nan\"]}\n}\n";
    const submission s = read_submission_text(text, "a.json", true);
    CHECK(s.student == "ana");
    CHECK(s.student_where.line == 2);
    CHECK(s.student_where.column == 14);
    const io::value_node* x = s.find("04-x");
    REQUIRE(x);
    const io::value_node* raw = x->get("raw");
    REQUIRE(raw);
    REQUIRE(raw->items.size() == 3);
    CHECK(raw->items[1].number == -0.25);
    CHECK(raw->items[1].where.str() == "a.json:3:23");
    CHECK(raw->items[2].is_string());  // "nan" stays a string here; the numeric grader reads it as NaN
}

TEST_CASE("NaN, Infinity and -Infinity are read as Python's json module writes them", "[grade]") {
    const submission s = read_submission_text("{\"x\": {\"w\": [NaN, Infinity, -Infinity, -1.5]}}", "p.json", true);
    const io::value_node* w = s.find("x")->get("w");
    REQUIRE(w);
    REQUIRE(w->length() == 4);  // an array of numbers only: packed (io/value_tree)
    CHECK(w->items.empty());
    CHECK(std::isnan(w->entry_at(0).number));
    CHECK(w->entry_at(1).number == std::numeric_limits<double>::infinity());
    CHECK(w->entry_at(2).number == -std::numeric_limits<double>::infinity());
    CHECK(w->entry_at(3).number == -1.5);
    CHECK(w->entry_at(3).where.str() == "p.json:1:40");  // a packed number keeps its place
}

TEST_CASE("a JSON syntax error names the line, the column and what was found", "[grade]") {
    using row = std::tuple<std::string, int, int, std::string>;
    auto [text, line, col, found] = GENERATE(table<std::string, int, int, std::string>({
        row{"{\"a\": [1, 2 3]}", 1, 13, "'3'"},
        row{"{\n\"a\": tru}", 2, 6, "expected a value"},
        row{"{\"a\": 1,}", 1, 9, "expected a key"},
        row{"{\"a\": Nan}", 1, 7, "expected a value"},
        row{"{\"a\": 1} x", 1, 10, "the end of the JSON text"},
        row{"{\"a\": \"\\q\"}", 1, 8, "unknown escape \\q"},  // at the backslash
        row{"{\"a\": 1, \"a\": 2}", 1, 10, "appears twice"},
    }));
    try {
        read_submission_text(text, "s.json", true);
        FAIL("no error for " << text);
    } catch (const attn::error& e) {
        CHECK(e.reason == "syntax");
        CHECK(e.where.line == line);
        CHECK(e.where.column == col);
        CHECK_THAT(e.what(), Catch::Contains(found));
    }
}

TEST_CASE("deeply nested JSON is refused rather than recursed into", "[grade]") {
    const std::string text = "{\"a\": " + std::string(10000, '[') + std::string(10000, ']') + "}";
    CHECK_THROWS_AS(read_submission_text(text, "deep.json", true), attn::error);
}

TEST_CASE("TOML answers keep positions and read nan as a number", "[grade]") {
    const submission s = read_submission_text("student = 'bo'\n[04-x]\nw = [0.5, nan]\n", "b.toml", false);
    const io::value_node* w = s.find("04-x")->get("w");
    REQUIRE(w);
    CHECK(w->where.line == 3);
    CHECK(w->items[0].number == 0.5);
    CHECK(std::isnan(w->items[1].number));
}

TEST_CASE("a submission that cannot be read says why", "[grade]") {
    using row = std::tuple<std::string, bool, std::string>;
    auto [text, json, reason] = GENERATE(table<std::string, bool, std::string>({
        row{"", false, "empty"},
        row{"  \n\t\n", true, "empty"},
        row{"student = \"caf\xe9\"\n", false, "not-utf8"},
        row{std::string("a = 1\0b = 2", 11), false, "not-utf8"},
        row{"[1, 2]", true, "layout"},
        row{"student = 3\n[04-x]\nraw = 1\n", false, "layout"},
        row{"student = \"x\"\n", false, "no-answers"},
        row{"[04-x\nraw = 1\n", false, "syntax"},
    }));
    try {
        read_submission_text(text, "f", json);
        FAIL("no error for " << text);
    } catch (const attn::error& e) {
        CHECK(e.reason == reason);
    }
}

TEST_CASE("a submission over the size limit is refused before it is parsed", "[grade]") {
    read_limits limits;
    limits.max_bytes = 64;
    const std::string big = "[04-x]\nraw = [" + std::string(200, '1') + "]\n";
    try {
        read_submission_text(big, "big.toml", false, limits);
        FAIL("a 200-byte file passed a 64-byte limit");
    } catch (const attn::error& e) {
        CHECK(e.reason == "too-large");
        CHECK_THAT(e.what(), Catch::Contains("64"));
    }
}

