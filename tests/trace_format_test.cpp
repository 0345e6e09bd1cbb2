// tests/trace_format_test.cpp — number printing, text width and table layout.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "core/attention.hpp"
#include "support/shared_example.hpp"
#include "trace/explain.hpp"
#include "trace/number_format.hpp"
#include "trace/table.hpp"
#include "io/utf8.hpp"
#include "trace/text_width.hpp"

using namespace attn;
using namespace attn::trace;

TEST_CASE("fixed never prints a negative zero", "[trace]") {
    auto [value, decimals, expected] = GENERATE(Catch::Generators::table<double, int, std::string>({
        {-0.0, 4, "0.0000"},
        {-0.00001, 4, "0.0000"},
        {-0.00005001, 4, "-0.0001"},
        {0.31234, 4, "0.3123"},
        {2.3, 2, "2.30"},
        {-1.15, 3, "-1.150"},
        {-0.004, 2, "0.00"},
    }));
    CHECK(fixed(value, decimals) == expected);
}

TEST_CASE("infinities print as -inf and inf and nan is never printed", "[trace]") {
    CHECK(fixed(-std::numeric_limits<double>::infinity(), 3) == "-inf");
    CHECK(fixed(std::numeric_limits<double>::infinity(), 3) == "inf");
    CHECK(fixed(std::nan(""), 4).find("nan") == std::string::npos);
}

TEST_CASE("signed_fixed shows the sign of the delta column like the seed", "[trace]") {
    CHECK(signed_fixed(0.0147, 4) == "+0.0147");
    CHECK(signed_fixed(-0.0106, 4) == "-0.0106");
    CHECK(signed_fixed(-0.00001, 4) == "0.0000");
}

TEST_CASE("rounded rounds half away from zero and never gives a negative zero", "[trace]") {
    CHECK(rounded(0.1 + 0.2, 6) == 0.3);
    CHECK(rounded(2.0 / 3.0, 2) == 0.67);
    CHECK(rounded(-1.25, 1) == -1.3);
    CHECK(rounded(1234.5, 0) == 1235.0);
    CHECK_FALSE(std::signbit(rounded(-1e-9, 6)));
    CHECK_FALSE(std::signbit(rounded(-0.0, 2)));
}

TEST_CASE("trimmed_fixed rounds then drops trailing zeros and never prints a negative zero", "[trace]") {
    CHECK(trimmed_fixed(2.0, 2) == "2");
    CHECK(trimmed_fixed(1.5, 2) == "1.5");
    CHECK(trimmed_fixed(1.0 / 3.0, 2) == "0.33");
    CHECK(trimmed_fixed(2.0 / 3.0, 2) == "0.67");
    CHECK(trimmed_fixed(0.125, 2) == "0.13");  // half away from zero, as std::round
    CHECK(trimmed_fixed(-0.001, 2) == "0");
    CHECK(trimmed_fixed(10.0, 2) == "10");
    CHECK(trimmed_fixed(10.0, 0) == "10");
    CHECK(trimmed_fixed(-1.25, 1) == "-1.3");
}

TEST_CASE("compact prints input numbers as a teacher writes them", "[trace]") {
    CHECK(compact(1.2) == "1.2");
    CHECK(compact(0.0) == "0.0");
    CHECK(compact(-0.0) == "0.0");
    CHECK(compact(0.125) == "0.125");
    CHECK(compact(2.0) == "2.0");
    CHECK(bracketed({1.2, 0.0, 1.1, 0.0}) == "[1.2, 0.0, 1.1, 0.0]");
}

TEST_CASE("a matrix is written as a list of bracketed rows", "[trace]") {
    const matrix m = {{1.0, 0.5}, {0.0, -2.0}};
    CHECK(bracketed_matrix(m) == "[[1.0, 0.5], [0.0, -2.0]]");
    CHECK(bracketed_matrix(m, 2) == "[[1.00, 0.50], [0.00, -2.00]]");
    CHECK(bracketed_matrix(matrix::from_shape({0, 3})) == "[]");
}

TEST_CASE("row labels are the tokens given, then the index of each row past them", "[trace]") {
    CHECK(labels_or_index({"the", "cat"}, 3) == std::vector<std::string>{"the", "cat", "2"});
    CHECK(labels_or_index({"the", "cat"}, 1) == std::vector<std::string>{"the"});
    CHECK(labels_or_index({}, 2) == std::vector<std::string>{"0", "1"});
}

TEST_CASE("a dot product is written term by term with negatives in parentheses", "[trace]") {
    CHECK(product_term(1.0, -0.5) == "1.0×(-0.5)");
    CHECK(product_term(-0.5, 0.5) == "-0.5×0.5");
    CHECK(product_term(1.0, -0.0) == "1.0×0.0");
    CHECK(sum_of_terms({product_term(1.0, 1.0), product_term(-0.5, -0.5)}) == "1.0×1.0 - 0.5×(-0.5)");
    CHECK(sum_of_terms({product_term(-1.0, 2.0), "…", product_term(3.0, 1.0)}) == "-1.0×2.0 + … + 3.0×1.0");
    CHECK(sum_of_terms({}).empty());
}

TEST_CASE("display width counts Hangul as two columns", "[trace]") {
    CHECK(display_width("cat") == 3);
    CHECK(display_width("고양이가") == 8);
    CHECK(display_width("앉았다") == 6);
    CHECK(display_width("é") == 1);
    CHECK(pad_right("앉았다", 8) == "앉았다  ");
    CHECK(pad_left("The", 5) == "  The");
    CHECK(attn::io::valid_utf8("고양이"));
    CHECK_FALSE(attn::io::valid_utf8(std::string("ab\xff", 3)));
}

TEST_CASE("a table with Hangul row labels keeps its columns aligned", "[trace]") {
    const matrix m = {{0.2, 0.75, 0.05}, {0.05, 0.10, 0.85}};
    const auto t = make_table("toy", "rows: target · columns: source", "KO \\ EN", {"고양이가", "앉았다"},
                              {"The", "cat", "sat"}, m, 2);
    const std::string out = render(t, style{});
    // Every data line has the same display width.
    std::vector<std::size_t> widths;
    std::size_t start = out.find('\n') + 1;
    while (start < out.size()) {
        const std::size_t end = out.find('\n', start);
        widths.push_back(display_width(out.substr(start, end - start)));
        start = end + 1;
    }
    REQUIRE(widths.size() == 3);
    CHECK(widths[0] == widths[1]);
    CHECK(widths[1] == widths[2]);
    CHECK(out.find("[2 × 3]") != std::string::npos);
}

TEST_CASE("the per-token trace writes each dot product term by term", "[trace]") {
    const auto s = scaled_dot_product_attention(testing::shared_q_dec(), testing::shared_k(), testing::shared_v());
    run_labels l;
    l.title = "Cross-attention";
    l.query_tokens = l.key_tokens = {"The", "cat", "sat", "on", "mat"};
    l.q_name = "Q_dec";
    l.k_name = "K_enc";
    l.v_name = "V_enc";
    const std::string t = explain_query(s, 0, l, style{});
    CHECK(t.find("1.2×0.0 + 0.0×1.0 + 1.1×0.0 + 0.0×1.0 = 0.00") != std::string::npos);
    CHECK(t.find("÷ √4 = ÷ 2.0") != std::string::npos);
    CHECK(t.find("A[The,cat] = 1.0000 ÷ 3.2020 = 0.3123 |############|") != std::string::npos);
    CHECK(t.find("O[The] = [0.2175, 0.4309, 0.2988, 0.2900]") != std::string::npos);
    CHECK(t.find("Sum of weights = 1.000000 ✓") != std::string::npos);
    CHECK(weight_bar(0.0989) == "|###|");
}

TEST_CASE("the trace of a fully masked row says so instead of printing NaN", "[trace]") {
    attention_options o;
    bool_matrix m = xt::ones<bool>({5, 5});
    for (std::size_t j = 0; j < 5; ++j) m(2, j) = false;
    o.mask = m;
    const auto s = scaled_dot_product_attention(testing::shared_q(), testing::shared_k(), testing::shared_v(), o);
    run_labels l;
    l.title = "Self-attention";
    l.query_tokens = l.key_tokens = {"The", "cat", "sat", "on", "mat"};
    const std::string t = explain_query(s, 2, l, style{});
    CHECK(t.find("every key is blocked") != std::string::npos);
    CHECK(t.find("nan") == std::string::npos);
    CHECK(t.find("(blocked by the mask)") != std::string::npos);
}

TEST_CASE("colour codes appear only when colour is on", "[trace]") {
    CHECK(style{false}.heading("x") == "x");
    CHECK(style{true}.heading("x") == "\x1b[1mx\x1b[0m");
}
