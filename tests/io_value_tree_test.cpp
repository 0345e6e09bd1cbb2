// tests/io_value_tree_test.cpp — the one value tree of TOML and JSON documents
// (io/value_tree), a value read as a matrix (io/value_matrix), a line typed at the
// practice prompt (io/typed_line) and the files of a handed-in folder (io/input_read).
// Expected trees and places are written by hand from the documents below.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "io/input_read.hpp"
#include "io/typed_line.hpp"
#include "io/value_matrix.hpp"
#include "io/value_tree.hpp"

using namespace attn;
using namespace attn::io;
namespace fs = std::filesystem;

namespace {

// The tree in one line of words, positions included: both formats must give the same.
std::string shape_of(const value_node& v) {
    const std::string at = "@" + std::to_string(v.where.line) + ":" + std::to_string(v.where.column);
    std::string out;
    if (v.is_table()) {
        out = "{";
        for (const auto& [k, e] : v.fields) out += k + "=" + shape_of(e) + " ";
        out += "}";
    } else if (v.is_array()) {
        out = "[";
        for (const auto& e : v.items) out += shape_of(e) + " ";
        out += "]";
    } else if (v.is_number()) {
        out = std::isnan(v.number) ? "nan" : std::to_string(v.number);
    } else if (v.is_string()) {
        out = "'" + v.text + "'";
    } else {
        out = type_name(v);
    }
    return out + at;
}

}  // namespace

TEST_CASE("a TOML and a JSON document give the same tree with every value's place", "[io]") {
    // Both documents put each value at the same line and column.
    const std::string toml = "\"a\" = 1.5\n\"b\" =[true, \"x\", nan]\n";
    const std::string json = "{\"a\": 1.5,\n\"b\": [true, \"x\", NaN]}\n";
    const value_node t = read_toml_tree(toml, "d.toml");
    const value_node j = read_json_tree(json, "d.json");
    const std::string want = "{a=1.500000@1:7 b=[true/false@2:7 'x'@2:13 nan@2:18 ]@2:6 }@1:1";
    CHECK(shape_of(t) == want);
    CHECK(shape_of(j) == want);
    CHECK(t.get("b")->items[0].flag);
    CHECK(j.get("b")->items[0].where.str() == "d.json:2:7");
    CHECK(j.get("missing") == nullptr);
    CHECK(j.get("a")->entries().size() == 1);  // one value is its own one entry
    CHECK(j.get("b")->entries().size() == 3);
}

TEST_CASE("a string or a number reads as text, a non-finite number in words", "[io]") {
    const value_node t = read_json_tree("[\"b\", 2.5, 1e300, -0.125, NaN, -Infinity, true, [1], null]", "v.json");
    CHECK(value_text(t.items[0]).value_or("?") == "b");
    CHECK(value_text(t.items[1]).value_or("?") == "2.5");
    CHECK(value_text(t.items[2]).value_or("?") == "1e+300");
    CHECK(value_text(t.items[3]).value_or("?") == "-0.125");
    CHECK(value_text(t.items[4]).value_or("?") == "not-a-number");  // never the letters nan
    CHECK(value_text(t.items[5]).value_or("?") == "infinity");
    CHECK_FALSE(value_text(t.items[6]));
    CHECK_FALSE(value_text(t.items[7]));
    CHECK_FALSE(value_text(t.items[8]));
}

TEST_CASE("a bad document is refused at its file, line and column", "[io]") {
    using row = std::tuple<std::string, bool, std::string, std::string>;
    auto [text, json, where, words] = GENERATE(table<std::string, bool, std::string, std::string>({
        row{"{\"a\": [1, 2 3]}", true, "f:1:13", "JSON syntax"},
        row{"{\n\"a\": tru}", true, "f:2:6", "expected a value"},
        row{"a = [1, 2\nb = 3\n", false, "f:2:1", "TOML syntax"},
        row{"x = \"caf\xe9\"\n", false, "f:1:9", "is not valid UTF-8"},
        row{"{\"a\": 1} x", true, "f:1:10", "the end of the JSON text"},
    }));
    try {
        read_document(text, "f", json);
        FAIL("no error for " << text);
    } catch (const attn::error& e) {
        CHECK(e.where.str() == where);
        CHECK_THAT(e.what(), Catch::StartsWith(where) && Catch::Contains(words));
    }
}

TEST_CASE("a document in the other format says which it looks like", "[io]") {
    try {
        read_document("a = 1\n", "t.json", true);
        FAIL("TOML read as JSON");
    } catch (const attn::error& e) {
        CHECK(e.reason == "syntax");
        CHECK_THAT(e.what(), Catch::StartsWith("t.json: this looks like TOML, not JSON") && Catch::Contains("rename it .toml"));
    }
    CHECK_THROWS_WITH(read_document(" \n", "e.toml", false), "e.toml: the file is empty");
    CHECK(read_document("\xEF\xBB\xBF" "a = 2\n", "bom.toml", false).get("a")->number == 2.0);
}

TEST_CASE("JSON is told by its extension, else by its first character", "[io]") {
    CHECK(looks_like_json("a.json", "x = 1"));
    CHECK_FALSE(looks_like_json("a.toml", "{}"));
    CHECK(looks_like_json("<stdin>", "  \n{\"a\": 1}"));
    CHECK_FALSE(looks_like_json("answers", "a = 1"));
}

TEST_CASE("a value reads as a matrix or says where it is not one", "[io]") {
    const value_node doc = read_json_tree(
        "{\"one\": 2, \"row\": [1, \"-inf\"], \"rows\": [[1, 2], [3, 4]], \"ragged\": [[1, 2], [3]], \"word\": \"cat\"}", "m.json");
    const matrix_read one = read_matrix(*doc.get("one"));
    REQUIRE(one.m.has_value());
    CHECK(one.m->shape(0) == 1);
    CHECK((*one.m)(0, 0) == 2.0);
    const matrix_read row = read_matrix(*doc.get("row"));
    REQUIRE(row.m.has_value());
    CHECK(row.m->shape(1) == 2);
    CHECK((*row.m)(0, 1) == -INFINITY);
    const matrix_read rows = read_matrix(*doc.get("rows"));
    REQUIRE(rows.m.has_value());
    CHECK((*rows.m)(1, 0) == 3.0);
    const matrix_read ragged = read_matrix(*doc.get("ragged"));
    CHECK_FALSE(ragged.m.has_value());
    CHECK(ragged.error == "m.json:1:77: row 1 has 1 entries but row 0 has 2 (every row needs the same number)");
    const matrix_read word = read_matrix(*doc.get("word"));
    CHECK(word.error == "m.json:1:91: expected a number or an array of rows of numbers, found a string \"cat\"");
    // A row given for a column is taken as the column; a wrong size is left to fail.
    const matrix column = conform(*row.m, matrix({2, 1}));
    CHECK(column.shape(0) == 2);
    CHECK(conform(*row.m, matrix({3, 1})).shape(0) == 1);
}

TEST_CASE("a typed line is read as a number, a row, rows, picks or a shape", "[io]") {
    std::string error;
    const auto rows = typed_numbers("0.1 0.2; 0.3 0.4", 0, error);
    REQUIRE(rows);
    REQUIRE(rows->items.size() == 2);
    CHECK(rows->items[1].items[0].number == 0.3);
    CHECK(rows->where.str() == "your answer");
    const auto bracketed = typed_numbers("[[1, 2], [3, 4]]", 0, error);
    REQUIRE(bracketed);
    CHECK(bracketed->items[1].items[1].number == 4.0);
    const auto word = typed_numbers("cat", 0, error);
    REQUIRE(word);
    CHECK(word->text == "cat");  // a token name stays text for the grader to judge
    const auto picks = typed_picks("1, c", 3, error);
    REQUIRE(picks);
    CHECK(picks->items[0].text == "a");
    CHECK(picks->items[1].text == "c");
    CHECK(typed_choice("4", 3, error)->text == "4");  // not a choice's number: as typed
    CHECK(typed_shape("[5, 4]", 0, error)->items.size() == 2);
    CHECK(typed_shape("5 × 4", 0, error)->text == "5 × 4");
    CHECK_FALSE(typed_numbers("[1, 2", 0, error));
    CHECK(error == "a '[' without its ']'");
    CHECK_FALSE(typed_numbers("[[[1]]]", 0, error));
    CHECK(error == "at most two levels of brackets: [[row], [row]]");
}

TEST_CASE("a handed-in folder lists its files in order and names what it skipped", "[io]") {
    const fs::path dir = fs::temp_directory_path() / ("attn-io-folder-" + std::to_string(::getpid()));
    fs::create_directories(dir / "sub" / "deeper");
    fs::create_directories(dir / ".hidden");
    for (const char* name : {"b.toml", "a.json", "notes.txt", "sub/c.toml", "sub/deeper/d.toml", ".hidden/e.toml"})
        std::ofstream(dir / name) << "x = 1\n";
    const folder_files found = list_folder(dir.string(), {".toml", ".json"}, 2, "answer file");
    fs::remove_all(dir);
    REQUIRE(found.files.size() == 3);  // sub/deeper is below the depth
    CHECK(found.files[0] == (dir / "a.json").string());
    CHECK(found.files[2] == (dir / "sub" / "c.toml").string());
    CHECK(found.bytes == 18);
    REQUIRE(found.skipped.size() == 1);
    CHECK(found.skipped[0].first == (dir / "notes.txt").string());
    CHECK(found.skipped[0].second == "ignored: not a .toml or .json answer file");
    CHECK_THROWS_WITH(list_folder((dir / "gone").string(), {".toml"}, 2, "answer file"),
                      Catch::StartsWith((dir / "gone").string() + ": cannot read the folder ("));
}
