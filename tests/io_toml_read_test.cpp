// tests/io_toml_read_test.cpp — the one typed TOML reader family (io/toml_read.hpp): the
// numbers it reads (an integer beyond 2^53 too), the unknown-key check at the key's own
// place with its "did you mean", and the collect mode that reports every problem.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "io/toml_parse.hpp"
#include "io/toml_read.hpp"

using attn::io::toml_problem;
using attn::io::toml_reader;

namespace {

std::string thrown(const std::function<void()>& f) {
    try {
        f();
    } catch (const attn::io::input_error& e) {
        return e.what();
    }
    return "(nothing thrown)";
}

}  // namespace

TEST_CASE("An integer beyond 2 to the 53 reads as the nearest double, never as 0", "[io][toml]") {
    const toml::table t = attn::io::parse_toml("big = 9223372036854775807\nneg = -9223372036854775808\n"
                                               "small = 3\nx = 2.5\nrow = [1, 9007199254740993]\n",
                                               "t.toml");
    const toml_reader rd{"t.toml"};
    // By hand: 2^63 - 1 and -2^63 round to ±2^63 = ±9.223372036854775808e18.
    CHECK(*rd.number(t, "big", true) == 9223372036854775808.0);
    CHECK(*rd.number(t, "neg", true) == -9223372036854775808.0);
    CHECK(*rd.number(t, "small", true) == 3.0);
    CHECK(*rd.number(t, "x", true) == 2.5);
    // 2^53 + 1 is not a double: it rounds to 2^53 (ties to even).
    CHECK(*rd.numbers(t.get("row"), "'row'") == std::vector<double>{1.0, 9007199254740992.0});
    CHECK(attn::io::toml_number(*t.get("big")) > 9e18);
    // A bound check then refuses it with its value, at its place.
    CHECK(thrown([&] { (void)rd.integer(t, "big", true, 1, 1000); }) ==
          "t.toml:1:7: 'big' must be a whole number from 1 to 1000, found 9223372036854775807");
}

TEST_CASE("An unknown key is named at the key with the closest known word", "[io][toml]") {
    const toml::table t = attn::io::parse_toml("id = \"a\"\n  pionts = 3\n", "a.toml");
    const toml_reader rd{"a.toml"};
    CHECK(thrown([&] { rd.known_keys(t, "an [[exercise]]", {"id", "points", "feedback"}); }) ==
          "a.toml:2:3: unknown key 'pionts' in an [[exercise]] (did you mean 'points'? known keys: id, points, feedback)");
    // Nothing close: no suggestion.
    CHECK(thrown([&] { rd.known_keys(t, "x", {"id", "zzzzzzzz"}); }) ==
          "a.toml:2:3: unknown key 'pionts' in x (known keys: id, zzzzzzzz)");
}

TEST_CASE("In collect mode every problem is recorded and the readers return nothing", "[io][toml]") {
    const toml::table t = attn::io::parse_toml("a = \"x\"\nb = true\nc = \"sometimes\"\n", "c.toml");
    std::vector<toml_problem> problems;
    const toml_reader rd{"c.toml", &problems};
    CHECK_FALSE(rd.number(t, "a", true).has_value());
    CHECK_FALSE(rd.string(t, "b", true).has_value());
    CHECK_FALSE(rd.choice(t, "c", true, {"always", "never"}).has_value());
    CHECK_FALSE(rd.boolean(t, "missing", true).has_value());
    REQUIRE(problems.size() == 4);
    CHECK(problems[0].str() == "c.toml:1:5: 'a' must be a number, found a string");
    CHECK(problems[1].str() == "c.toml:2:5: 'b' must be a string, found a boolean");
    CHECK(problems[2].str() == "c.toml:3:5: 'c' must be \"always\" or \"never\", found \"sometimes\"");
    CHECK(problems[3].str().find("missing key 'missing' (expected true or false)") != std::string::npos);
}

TEST_CASE("An array of tables gives its tables and names each element that is not one", "[io][toml]") {
    const toml::table t = attn::io::parse_toml("step = [{title = \"a\"}, 3, {title = \"b\"}]\nshow = 7\n", "s.toml");
    std::vector<toml_problem> problems;
    const toml_reader rd{"s.toml", &problems};
    const std::vector<const toml::table*> steps = rd.tables(t.get("step"), "not an array", "each step must be a table");
    REQUIRE(steps.size() == 2);
    CHECK(*rd.string(*steps[0], "title", true) == "a");
    CHECK(*rd.string(*steps[1], "title", true) == "b");
    CHECK(rd.tables(t.get("show"), "'show' must be an array of tables", "-").empty());
    REQUIRE(problems.size() == 2);
    CHECK(problems[0].str() == "s.toml:1:24: each step must be a table");
    CHECK(problems[1].str() == "s.toml:2:8: 'show' must be an array of tables");
    // Throw mode stops at the first element that is not a table.
    const toml_reader strict{"s.toml"};
    CHECK(thrown([&] { strict.tables(t.get("step"), "-", "each step must be a table"); }) ==
          "s.toml:1:24: each step must be a table");
}

TEST_CASE("Indices are read as numbers or names, each problem at its entry", "[io][toml]") {
    const toml::table t = attn::io::parse_toml("rows = [2, \"cat\", 0]\nfar = [3]\nodd = [\"dog\"]\nmixed = [1.5]\n"
                                               "none = []\nlate = [\"sat\"]\n",
                                               "i.toml");
    const std::vector<std::string> names{"the", "cat", "sat"};
    std::vector<toml_problem> problems;
    const toml_reader rd{"i.toml", &problems};
    CHECK(*rd.indices(t, "rows", 3, names) == std::vector<std::size_t>{2, 1, 0});
    CHECK(rd.indices(t, "absent", 3, names)->empty());  // nothing picked: every row
    CHECK_FALSE(rd.indices(t, "far", 3, names).has_value());
    CHECK_FALSE(rd.indices(t, "odd", 3, names).has_value());
    CHECK_FALSE(rd.indices(t, "mixed", 3, names).has_value());
    CHECK_FALSE(rd.indices(t, "none", 3, names).has_value());
    // Only the first n names count: "sat" names the third row of three, not one of two.
    CHECK(*rd.indices(t, "late", 3, names) == std::vector<std::size_t>{2});
    CHECK_FALSE(rd.indices(t, "late", 2, names).has_value());
    REQUIRE(problems.size() == 5);
    CHECK(problems[0].str() == "i.toml:2:8: 'far' index 3 is outside 0..2");
    CHECK(problems[1].str() == "i.toml:3:8: 'odd' names token 'dog', which is not one of: the, cat, sat");
    CHECK(problems[2].str() == "i.toml:4:10: 'mixed' entries must be indices or token names, found a number");
    CHECK(problems[3].str() == "i.toml:5:8: 'none' must be a non-empty array of indices (0-based) or token names");
    CHECK(problems[4].str() == "i.toml:6:9: 'late' names token 'sat', which is not one of: the, cat, sat");
}
