// tests/io_text_readers_test.cpp — io's text readers shared by the floors above:
// json_scan, the one JSON reader (safetensors headers, config.json, students'
// answers.json), csv_rows (the review sheet) and text_position (file:line:col of a byte).
// Indices, places and words checked by hand against the texts below.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "io/csv_cell.hpp"
#include "io/csv_rows.hpp"
#include "io/json_scan.hpp"
#include "io/shown_text.hpp"
#include "io/text_position.hpp"
#include "io/utf8.hpp"

namespace {

struct refused {
    std::size_t at;
    std::string message;
};

std::string byte_place(std::size_t at) { return "byte " + std::to_string(at); }

// Scans text with the caller-style reader below; the first refusal, or at = npos.
refused scan(const std::string& text) {
    attn::io::json_scan js(text, [](std::size_t at, const std::string& m) { throw refused{at, m}; }, byte_place);
    try {
        std::function<void()> value = [&] {
            const char c = js.peek();
            if (c == '{') return js.object([&](const std::string&, std::size_t) { value(); });
            if (c == '[') return js.array([&](std::size_t) { value(); });
            js.skip_value();
        };
        value();
        js.finish();
    } catch (const refused& r) {
        return r;
    }
    return {std::string::npos, ""};
}

}  // namespace

TEST_CASE("json_scan reads nested values and their keys in file order", "[io][json]") {
    const std::string text = R"( {"a": [1, -2.5e1, {"b": "x\u00e9\n"}], "c": true, "d": null} )";
    attn::io::json_scan js(text, [](std::size_t at, const std::string& m) { throw refused{at, m}; }, byte_place);
    std::vector<std::string> keys;
    std::vector<double> numbers;
    std::string b;
    bool c = false;
    js.object([&](const std::string& key, std::size_t at) {
        keys.push_back(key + "@" + std::to_string(at));
        if (key == "a")
            js.array([&](std::size_t i) {
                if (i < 2) return numbers.push_back(js.number_value());
                js.object([&](const std::string&, std::size_t) { b = js.string_value(); });
            });
        else if (key == "c") c = js.bool_value();
        else CHECK(js.literal("null"));
    });
    js.finish();
    CHECK(keys == std::vector<std::string>{"a@2", "c@40", "d@51"});
    CHECK(numbers == std::vector<double>{1.0, -25.0});
    CHECK(b == "x\xc3\xa9\n");
    CHECK(c);
}

TEST_CASE("json_scan refuses bad JSON at the byte where it goes wrong, saying what it found", "[io][json]") {
    using row = std::tuple<std::string, std::size_t, std::string>;
    auto [text, at, words] = GENERATE(table<std::string, std::size_t, std::string>({
        row{"[1, 2 3]", 6, "expected ',' or ']' in an array, found '3'"},
        row{"{\"a\": 1,}", 8, "expected a key (a string) in an object, found '}'"},
        row{"{\"a\": 1, \"a\": 2}", 9, "key \"a\" appears twice in one object (first at byte 1); keep one of them"},
        row{"[01]", 1, "leading zero"},
        row{"[\"\\q\"]", 2, "unknown escape \\q"},
        row{"[\"abc", 1, "never closed"},
        row{"[1] x", 4, "expected the end of the JSON text after the top-level value, found 'x'"},
        row{"[\"\xff\"]", 2, "invalid UTF-8"},
        row{std::string(65, '[') + std::string(65, ']'), 64, "nested deeper than 64 levels"},
    }));
    INFO(text);
    const refused r = scan(text);
    CHECK(r.at == at);
    CHECK_THAT(r.message, Catch::Contains(words));
}

TEST_CASE("a byte offset reads as line and column, columns counting characters", "[io][json]") {
    const std::string text = "ab\n\xc3\xa9x\ny";
    CHECK(attn::io::position_in("f", text, 0).str() == "f:1:1");
    CHECK(attn::io::position_in("f", text, 3).str() == "f:2:1");  // é's first byte
    CHECK(attn::io::position_in("f", text, 5).str() == "f:2:2");
    CHECK(attn::io::position_in("f", text, 7).str() == "f:3:1");
    attn::io::text_position p("f", text);
    CHECK(p.to(5).str() == "f:2:2");
    CHECK(p.to(8).str() == "f:3:2");
}

TEST_CASE("csv_rows reads quoted cells, doubled quotes, line breaks and CRLF, with each cell's place", "[io][csv]") {
    const std::string text = "\xEF\xBB\xBF" "a,\"b,\"\"c\"\"\"\r\n\n\"x\ny\",\n";
    const auto rows = attn::io::read_csv_rows(text, "s.csv");
    REQUIRE(rows.size() == 2);
    REQUIRE(rows[0].size() == 2);
    CHECK(rows[0][0].text == "a");
    CHECK(rows[0][0].where.str() == "s.csv:1:1");  // the byte order mark takes no column
    CHECK(rows[0][1].text == "b,\"c\"");
    CHECK(rows[0][1].where.str() == "s.csv:1:3");
    REQUIRE(rows[1].size() == 2);
    CHECK(rows[1][0].text == "x\ny");
    CHECK(rows[1][0].where.str() == "s.csv:3:1");
    CHECK(rows[1][1].text.empty());  // a comma ending the line: one more, empty, cell
}

TEST_CASE("strip_folder names the files of a folder relative to it, in a message or a path", "[io][shown]") {
    std::string message = "class/ana.toml:2:1: see class/ana/answers.json";
    attn::io::strip_folder(message, "class//");  // trailing slashes ignored
    CHECK(message == "ana.toml:2:1: see ana/answers.json");
    std::string path = "class/x/class/y.toml";
    attn::io::strip_folder(path, "class", /*leading_only=*/true);
    CHECK(path == "x/class/y.toml");
    std::string outside = "other/class/y.toml";
    attn::io::strip_folder(outside, "class", true);
    CHECK(outside == "other/class/y.toml");
    CHECK(attn::io::capped_text("aé" + std::string(10, 'b'), 2) == "a … [12 more bytes cut]");  // not inside é
}

TEST_CASE("first_line keeps a text's first line and cuts a long one at a character boundary", "[io][utf8]") {
    using attn::io::first_line;
    CHECK(first_line("Weights of 'cat'\nThen the rest", 60) == "Weights of 'cat'");
    CHECK(first_line("no line break", 60) == "no line break");
    CHECK(first_line("", 60).empty());
    CHECK(first_line("abcdef", 3) == "abc…");
    CHECK(first_line("a\xC3\xA9" "b", 2) == "a…");  // never half of é
    CHECK(first_line("abc\n", 3) == "abc");
}

TEST_CASE("utf8_boundary never splits a character: a cut inside one moves to its start", "[io][utf8]") {
    const std::string s = "a\xC3\xA9\xE2\x82\xAC";  // a, é (2 bytes), € (3 bytes)
    using attn::io::utf8_boundary;
    CHECK(utf8_boundary(s, 0) == 0);
    CHECK(utf8_boundary(s, 1) == 1);
    CHECK(utf8_boundary(s, 2) == 1);  // inside é
    CHECK(utf8_boundary(s, 3) == 3);
    CHECK(utf8_boundary(s, 5) == 3);  // inside €
    CHECK(utf8_boundary(s, 6) == 6);  // the end
}

TEST_CASE("csv_text is a text cell before quoting and reads back as csv_text_cell wrote it", "[io][csv]") {
    using attn::io::csv_text;
    CHECK(csv_text("plain") == "plain");
    CHECK(csv_text("=SUM(A1)") == "'=SUM(A1)");           // never a formula
    CHECK(csv_text("a\x1b[2Jb") == "a\\x1b[2Jb");          // no control character
    const std::string cell = attn::io::csv_text_cell("=x, \"y\"");
    CHECK(cell == "\"'=x, \"\"y\"\"\"");
    CHECK(attn::io::read_csv_rows(cell + "\n", "t.csv")[0][0].text == csv_text("=x, \"y\""));
}

TEST_CASE("csv_table finds cells by their column's name, in any order, null past a short row", "[io][csv]") {
    const auto t = attn::io::read_csv_table("points,student,x,student\n1,ana\n,bob,,carl\n", "s.csv");
    REQUIRE(t.rows.size() == 3);
    CHECK(t.columns.at("points") == 0);
    CHECK(t.columns.at("student") == 3);  // named twice: the last column
    REQUIRE(t.cell(2, "student"));
    CHECK(t.cell(2, "student")->text == "carl");
    CHECK(t.cell(2, "student")->where.str() == "s.csv:3:7");
    CHECK(t.cell(1, "points")->text == "1");
    CHECK(t.cell(1, "student") == nullptr);  // row 1 has two cells
    CHECK(t.cell(1, "comment") == nullptr);  // no such column
    CHECK(attn::io::read_csv_table("", "s.csv").rows.empty());
}

TEST_CASE("csv_rows refuses an unclosed quote and text after a closing quote, at their place", "[io][csv]") {
    using row = std::tuple<std::string, std::string>;
    auto [text, words] = GENERATE(table<std::string, std::string>({
        row{"a,\"b", "s.csv:1:5: a quoted cell is not closed"},
        row{"a\n\"b\"c,d", "s.csv:2:4: expected ',' or the end of the line after a quoted cell, found 'c'"},
    }));
    try {
        attn::io::read_csv_rows(text, "s.csv");
        FAIL("no error for " << text);
    } catch (const attn::io::input_error& e) {
        CHECK(e.reason == "syntax");
        CHECK_THAT(e.what(), Catch::StartsWith(words));
    }
}
