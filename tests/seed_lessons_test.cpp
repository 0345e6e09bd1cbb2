// tests/seed_lessons_test.cpp — the seed numbers lessons 03, 05, 06 and 14 rely on
// (golden/seed-002.toml's added tables, golden/seed-004.toml), checked twice:
// against the core computing them directly from the shared example, and against
// the lesson files' own runs, so a lesson that drifts from the seed fails here.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "core/attention.hpp"
#include "core/mask.hpp"
#include "lessons/lesson_loader.hpp"
#include "support/lesson_files.hpp"
#include "support/seed_printed.hpp"
#include "support/shared_example.hpp"

using namespace attn;
using attn::testing::lesson_file;
using attn::testing::prints_as;

namespace {

struct seed_row_table {
    int decimals = 0;
    std::vector<std::vector<double>> rows;
};

seed_row_table load(const std::string& file, const std::string& name) {
    const toml::table doc = toml::parse_file(std::string(ATTN_SOURCE_DIR) + "/golden/" + file);
    const toml::table* t = doc[name].as_table();
    REQUIRE(t != nullptr);
    seed_row_table out;
    out.decimals = static_cast<int>((*t)["decimals"].value_or<int64_t>(-1));
    const toml::array* values = (*t)["values"].as_array();
    REQUIRE(values != nullptr);
    auto row_of = [](const toml::array& a) {
        std::vector<double> r;
        for (const auto& e : a) r.push_back(*e.value<double>());
        return r;
    };
    if (!values->front().is_array()) out.rows.push_back(row_of(*values));
    else
        for (const auto& r : *values) out.rows.push_back(row_of(*r.as_array()));
    return out;
}

void check_row(const seed_row_table& seed, const matrix& m, std::size_t row) {
    REQUIRE(seed.rows.size() == 1);
    REQUIRE(m.shape(1) == seed.rows[0].size());
    for (std::size_t j = 0; j < m.shape(1); ++j) {
        INFO("column " << j << ": ours " << m(row, j) << ", seed " << seed.rows[0][j]);
        CHECK(prints_as(m(row, j), seed.rows[0][j], seed.decimals));
        if (seed.rows[0][j] == 0.0) CHECK(m(row, j) == 0.0);  // blocked keys: exactly 0, not small
    }
}

}  // namespace

TEST_CASE("the causal row 'cat' is 0.8176 0.1824 and three exact zeros", "[seed][lessons]") {
    const auto seed = load("seed-002.toml", "causal_cat_weights");
    attention_options o;
    o.mask = causal_mask(5, 5);
    check_row(seed, scaled_dot_product_attention(testing::shared_q(), testing::shared_k(), testing::shared_v(), o).weights, 1);
    o.masked_fill = -1e5;  // the seed's constant gives the same exact zeros
    check_row(seed, scaled_dot_product_attention(testing::shared_q(), testing::shared_k(), testing::shared_v(), o).weights, 1);
    check_row(seed, lesson_file("03-causal-attention.toml").runs.at("causal").steps.weights, 1);
    check_row(seed, lesson_file("03-causal-attention.toml").runs.at("causal_1e5").steps.weights, 1);
}

TEST_CASE("padding the last two encoder tokens gives row 'The' 0.1672 0.5281 0.3047 0 0", "[seed][lessons]") {
    const auto seed = load("seed-002.toml", "padded_the_weights");
    attention_options o;
    o.mask = padding_mask(5, {false, false, false, true, true});
    check_row(seed,
              scaled_dot_product_attention(testing::shared_q_dec(), testing::shared_k(), testing::shared_v(), o).weights, 0);
    check_row(seed, lesson_file("06-padding-masks.toml").runs.at("padded").steps.weights, 0);
}

TEST_CASE("identical decoder queries give chapter 1's weights for 'The'", "[seed][lessons]") {
    const auto seed = load("seed-002.toml", "identical_q_the_weights");
    check_row(seed, lesson_file("14-beyond-text.toml").runs.at("same").steps.weights, 0);
}

TEST_CASE("the first of 3 decoder tokens gets the seed's output row", "[seed][lessons]") {
    const auto seed = load("seed-002.toml", "different_lengths_le_output");
    const auto l = lesson_file("05-different-lengths.toml");
    const auto& run = l.runs.at("fr").steps;
    CHECK(run.weights.shape(0) == 3);
    CHECK(run.weights.shape(1) == 5);
    check_row(seed, run.output, 0);
    // And the 3 × 5 weights are seed 002's printed rows.
    const auto w = load("seed-002.toml", "cross_3x5_weights");
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 5; ++j) CHECK(prints_as(run.weights(i, j), w.rows[i][j], 4));
}

TEST_CASE("lesson 05's Korean matrix is seed 004's, and its rows are distributions", "[seed][lessons]") {
    const auto seed = load("seed-004.toml", "korean_cross_weights");
    const auto l = lesson_file("05-different-lengths.toml");
    const matrix& k = l.matrices.at("korean");
    REQUIRE(k.shape(0) == 2);
    REQUIRE(k.shape(1) == 3);
    for (std::size_t i = 0; i < 2; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < 3; ++j) {
            CHECK(k(i, j) == Approx(seed.rows[i][j]).margin(1e-12));
            sum += k(i, j);
        }
        CHECK(sum == Approx(1.0).margin(1e-12));
    }
    CHECK(l.tokens.at("ko") == std::vector<std::string>{"고양이가", "앉았다"});
    const auto hello = load("seed-004.toml", "hello_self_weights");
    for (const auto& r : hello.rows) CHECK(r[0] + r[1] + r[2] + r[3] == Approx(1.0).margin(1e-12));
    // Lesson 05 shows the worksheet's Hello I love you matrix with the worksheet's numbers.
    const matrix& h = l.matrices.at("hello_weights");
    REQUIRE(h.shape(0) == 4);
    REQUIRE(h.shape(1) == 4);
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 4; ++j) CHECK(h(i, j) == Approx(hello.rows[i][j]).margin(1e-12));
    CHECK(l.tokens.at("hello") == std::vector<std::string>{"Hello", "I", "love", "you"});
}

TEST_CASE("seed 004's t1 t2 t3 grid is the causal mask lesson 03 draws", "[seed][lessons]") {
    const toml::table doc = toml::parse_file(std::string(ATTN_SOURCE_DIR) + "/golden/seed-004.toml");
    const toml::array* grid = doc["inference_grid"]["attend"].as_array();
    REQUIRE(grid != nullptr);
    const bool_matrix ours = lesson_file("03-causal-attention.toml").runs.at("three").steps.attend;
    const bool_matrix core = causal_mask(3, 3);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j) {
            const bool seed = *grid->get(i)->as_array()->get(j)->value<int64_t>() == 1;
            CHECK(ours(i, j) == seed);
            CHECK(core(i, j) == seed);
        }
}
