// tests/core_shapes_test.cpp — the symbolic shape engine: parsing the spellings students
// use, canonical printing, algebra, evaluation with numbers, comparison verdicts, and
// parse errors with their columns. Expected values are written by hand from seed 004.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>

#include "core/shapes.hpp"

using namespace attn;

TEST_CASE("every spelling of a shape parses to the same canonical text", "[core]") {
    const auto [text, canonical] = GENERATE(table<std::string, std::string>({
        {"B × n_tgt × d_q", "B × n_tgt × d_q"},
        {"B x n_tgt x d_q", "B × n_tgt × d_q"},
        {"B X n_tgt X d_q", "B × n_tgt × d_q"},
        {"(B, n_tgt, d_q)", "B × n_tgt × d_q"},
        {"[B, n_tgt, d_q]", "B × n_tgt × d_q"},
        {"  [ B ,n_tgt,  d_q ]  ", "B × n_tgt × d_q"},
        {"B n_tgt d_q", "B × n_tgt × d_q"},
        {"B×n_tgt×d_q", "B × n_tgt × d_q"},
        {"B × n_{tgt} × d_{q}", "B × n_tgt × d_q"},
        {"B*n_tgt", "B·n_tgt"},
        {"B * n_tgt, d", "B·n_tgt × d"},
        {"d/H", "d/H"},
        {"(d/H)", "d/H"},
        {"B, H, n, d_model / H", "B × H × n × d_model/H"},
        {"4d", "4·d"},
        {"n^2", "n^2"},
        {"n*n", "n^2"},
        {"d/(2H)", "d/(2·H)"},
        {"(B*n)/B", "n"},
        {"5x4", "5 × 4"},
        {"5 × 4 × 3", "5 × 4 × 3"},
        {"()", "()"},
        {"[]", "()"},
        {"D_Model", "D_Model"},
        {"d·d_ff", "d·d_ff"},
        {"d ÷ H", "d/H"},
        {"R^{B × n_tgt × d}", "B × n_tgt × d"},
        {"ℝ^(n, d)", "n × d"},
        {"R^{n \\times d_{model}}", "n × d_model"},
        {"{n, d}", "n × d"},
        {"d_model \\cdot H", "d_model·H"},
    }));
    INFO(text);
    CHECK(to_string(parse_shape(text)) == canonical);
}

TEST_CASE("dims are equal up to algebra", "[core]") {
    const auto [a, b, equal] = GENERATE(table<std::string, std::string, bool>({
        {"d_model/H * H", "d_model", true},
        {"H*d_model/H", "d_model", true},
        {"2*d/2", "d", true},
        {"B*n", "n*B", true},
        {"4*d", "d*4", true},
        {"d/H", "d", false},
        {"d_q", "d_k", false},
        {"d", "D", false},  // symbol case is preserved
        {"n^2/n", "n", true},
        {"6/4", "3/2", true},
        {"0*d", "0", true},
    }));
    INFO(a << " vs " << b);
    CHECK((parse_dim(a) == parse_dim(b)) == equal);
}

TEST_CASE("evaluating a shape plugs numbers into its symbols", "[core]") {
    const symbol_values v{{"B", 2}, {"n_tgt", 3}, {"n_src", 5}, {"d", 8}, {"H", 2}, {"d_ff", 32}};
    CHECK(evaluate(parse_shape("B × n_tgt × n_src"), v) == std::vector<std::int64_t>{2, 3, 5});
    CHECK(evaluate(parse_shape("B × H × n_tgt × d/H"), v) == std::vector<std::int64_t>{2, 2, 3, 4});
    CHECK(evaluate(parse_shape("4d, d_ff/4"), v) == std::vector<std::int64_t>{32, 8});
    CHECK(to_string(evaluate(parse_shape("B × n_tgt × d"), v)) == "2 × 3 × 8");
    CHECK(evaluate(parse_shape("()"), v).empty());
}

TEST_CASE("evaluating names the unbound symbol and refuses fractions", "[core]") {
    const symbol_values v{{"B", 2}, {"d", 10}, {"H", 3}};
    try {
        evaluate(parse_shape("B × n_tgt × d"), v);
        FAIL("no error");
    } catch (const shape_eval_error& e) {
        CHECK(e.symbol == "n_tgt");
        CHECK(std::string(e.what()) == "symbol n_tgt has no value (bound: B, H, d)");
    }
    try {
        parse_dim("d/H").evaluate(v);
        FAIL("no error");
    } catch (const shape_eval_error& e) {
        CHECK(std::string(e.what()) == "d/H = 10/3 is not a whole number");
    }
    CHECK_THROWS_AS(parse_dim("d/H").evaluate({{"d", 4}, {"H", 0}}), shape_eval_error);
    CHECK_THROWS_AS(parse_dim("n").evaluate({{"n", -1}}), shape_eval_error);
}

TEST_CASE("substitution turns d_head into d_model/H", "[core]") {
    const auto s = substitute(parse_shape("B × H × n × d_head"), {{"d_head", parse_dim("d_model/H")}});
    CHECK(to_string(s) == "B × H × n × d_model/H");
    CHECK(parse_dim("H*d_head").substitute({{"d_head", parse_dim("d_model/H")}}) == parse_dim("d_model"));
}

TEST_CASE("shape comparison classifies the difference", "[core]") {
    const auto [expected, actual, verdict, explanation] =
        GENERATE(table<std::string, std::string, shape_verdict, std::string>({
            {"B × n_tgt × d_q", "(B, n_tgt, d_q)", shape_verdict::equal, "shapes agree: B × n_tgt × d_q"},
            {"B × n_tgt × n_src", "B × n_src × n_tgt", shape_verdict::permuted,
             "the last two axes are swapped: expected B × n_tgt × n_src, found B × n_src × n_tgt"},
            {"B × n × d", "d × B × n", shape_verdict::permuted,
             "same dimensions in another order: expected B × n × d, found d × B × n"},
            {"B × n_tgt × d", "n_tgt × d", shape_verdict::rank_differs,
             "expected 3 axes, found 2; axis 1 is missing (expected B × n_tgt × d, found n_tgt × d)"},
            {"n × d", "n × H × d", shape_verdict::rank_differs,
             "expected 2 axes, found 3; axis 2 is extra (expected n × d, found n × H × d)"},
            {"B × n × d", "n", shape_verdict::rank_differs, "expected 3 axes, found 1 (expected B × n × d, found n)"},
            {"B × n_tgt × d_q", "B × n_tgt × d_v", shape_verdict::dim_differs,
             "axis 3 of 3 differs: expected d_q, found d_v (expected B × n_tgt × d_q, found B × n_tgt × d_v)"},
            {"B × n_tgt × d", "B × n_src × d_v", shape_verdict::dim_differs,
             "axis 2 of 3 differs: expected n_tgt, found n_src (and 1 more axes differ) (expected B × n_tgt × d, "
             "found B × n_src × d_v)"},
            {"d × d_model/H", "d × d_model", shape_verdict::dim_differs,
             "axis 2 of 2 differs: expected d_model/H, found d_model (expected d × d_model/H, found d × d_model)"},
        }));
    INFO(expected << " vs " << actual);
    const auto c = compare_shapes(parse_shape(expected), parse_shape(actual));
    CHECK(c.verdict == verdict);
    CHECK(c.explain() == explanation);
}

TEST_CASE("comparison reports positions, permutation and both dims", "[core]") {
    const auto swapped = compare_shapes(parse_shape("B × n_tgt × n_src"), parse_shape("B × n_src × n_tgt"));
    CHECK(swapped.last_two_swapped);
    CHECK(swapped.permutation == std::vector<std::size_t>{0, 2, 1});
    const auto missing = compare_shapes(parse_shape("B × n × d"), parse_shape("B × d"));
    REQUIRE(missing.odd_axis.has_value());
    CHECK(*missing.odd_axis == 1);
    CHECK(missing.missing_axis);
    const auto differ = compare_shapes(parse_shape("B × n_tgt × d_q"), parse_shape("B × n_tgt × d_v"));
    CHECK(differ.position == 2);
    CHECK(differ.expected_dim == "d_q");
    CHECK(differ.actual_dim == "d_v");
    CHECK(differ.differing_axes == 1);
    const auto numbers = compare_shapes(std::vector<std::int64_t>{2, 3, 5}, std::vector<std::int64_t>{2, 5, 3});
    CHECK(numbers.verdict == shape_verdict::permuted);
    CHECK(numbers.last_two_swapped);
    const auto repeated = compare_shapes(parse_shape("n × n"), parse_shape("n × n"));
    CHECK(repeated.verdict == shape_verdict::equal);
}

TEST_CASE("parse errors give the column of the bad character", "[core]") {
    const auto [text, column, found] = GENERATE(table<std::string, std::size_t, std::string>({
        {"B × n + d", 7, "'+'"},
        {"B × × d", 5, "'×'"},   // columns count characters: × is one
        {"B × n ×", 8, "end of text"},
        {"(B, n, d]", 9, "']'"},
        {"B, (n, d)", 6, "','"},
        {"", 1, "end of text"},
        {"d/0", 3, "'0'"},
        {"2.5", 2, "'.'"},
        {"B × n)", 6, "')'"},
        {"(B × n", 7, "end of text"},
        {"d^x2", 3, "'x2'"},
        {"n_{tgt", 7, "end of text"},
        {"B – n", 3, "'–'"},
        {"R^{B × n]", 9, "']'"},
    }));
    INFO(text);
    try {
        parse_shape(text);
        FAIL("no error for " << text);
    } catch (const shape_parse_error& e) {
        CHECK(e.column == column);
        CHECK(e.found == found);
        CHECK(std::string(e.what()).rfind("column " + std::to_string(column) + ": expected", 0) == 0);
    }
}

TEST_CASE("parse_dim refuses a whole shape", "[core]") {
    CHECK_THROWS_AS(parse_dim("B × n"), shape_parse_error);
    CHECK(parse_dim(" d_model / H ").to_string() == "d_model/H");
}

TEST_CASE("the standard symbols cover the seeds' names", "[core]") {
    for (const char* name : {"B", "n_q", "n_k", "n_src", "n_tgt", "d", "d_model", "d_k", "d_q", "d_v", "d_ff", "H", "d_head"})
        CHECK(is_standard_symbol(name));
    CHECK_FALSE(is_standard_symbol("n_tgtt"));
    CHECK(make_shape({"B", "n_tgt", "d_model/H"}) == parse_shape("B × n_tgt × d_model/H"));
}
