// tests/seed_numbers_test.cpp — the core against the numbers printed in seed 002,
// transcribed in golden/seed-002.toml, compared at the seed's printed precision:
// our value rounded to `decimals` must equal the seed's printed value.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "core/attention.hpp"
#include "support/seed_printed.hpp"
#include "support/shared_example.hpp"

using namespace attn;
using attn::testing::prints_as;

namespace {

struct seed_table {
    int decimals = 0;
    std::vector<std::vector<double>> rows;
};

seed_table seed_002_table(const std::string& name) {
    static const toml::table doc = toml::parse_file(std::string(ATTN_SOURCE_DIR) + "/golden/seed-002.toml");
    const toml::table* t = doc[name].as_table();
    REQUIRE(t != nullptr);
    seed_table out;
    out.decimals = static_cast<int>((*t)["decimals"].value_or<int64_t>(-1));
    const toml::array* values = (*t)["values"].as_array();
    REQUIRE(values != nullptr);
    if (!values->front().is_array()) {
        std::vector<double> row;
        for (const auto& e : *values) row.push_back(*e.value<double>());
        out.rows.push_back(row);
        return out;
    }
    for (const auto& r : *values) {
        std::vector<double> row;
        for (const auto& e : *r.as_array()) row.push_back(*e.value<double>());
        out.rows.push_back(row);
    }
    return out;
}

void check_matrix(const std::string& name, const matrix& ours) {
    const seed_table seed = seed_002_table(name);
    INFO("seed table " << name);
    REQUIRE(ours.shape(0) == seed.rows.size());
    for (std::size_t i = 0; i < seed.rows.size(); ++i) {
        REQUIRE(ours.shape(1) == seed.rows[i].size());
        for (std::size_t j = 0; j < seed.rows[i].size(); ++j) {
            INFO("row " << i << " column " << j << ": ours " << ours(i, j) << ", seed " << seed.rows[i][j]);
            CHECK(prints_as(ours(i, j), seed.rows[i][j], seed.decimals));
        }
    }
}

matrix row_of(const matrix& m, std::size_t i) {
    matrix r({1, m.shape(1)});
    for (std::size_t j = 0; j < m.shape(1); ++j) r(0, j) = m(i, j);
    return r;
}

}  // namespace

TEST_CASE("cross-attention stages print as seed 002's tables", "[seed]") {
    const auto s = scaled_dot_product_attention(testing::shared_q_dec(), testing::shared_k(), testing::shared_v());
    check_matrix("cross_raw", s.scores_raw);
    check_matrix("cross_scaled", s.scores_scaled);
    check_matrix("cross_weights", s.weights);
    check_matrix("cross_output", s.output);
    check_matrix("cross_the_contributions", contributions_for_query(s, 0));
}

TEST_CASE("self-attention row The and the delta column print as seed 002's", "[seed]") {
    const auto cross = scaled_dot_product_attention(testing::shared_q_dec(), testing::shared_k(), testing::shared_v());
    const auto self = scaled_dot_product_attention(testing::shared_q(), testing::shared_k(), testing::shared_v());
    check_matrix("self_the_weights", row_of(self.weights, 0));
    check_matrix("self_the_output", row_of(self.output, 0));
    check_matrix("delta_the", row_of(matrix(cross.weights - self.weights), 0));
    check_matrix("self_cat_the_weight", matrix{{self.weights(1, 0)}});
    check_matrix("self_on_on_weight", matrix{{self.weights(3, 3)}});
}

TEST_CASE("the 3 by 5 different-length case prints as seed 002's", "[seed]") {
    matrix q3 = xt::view(testing::shared_q_dec(), xt::range(0, 3), xt::all());
    const auto s = scaled_dot_product_attention(q3, testing::shared_k(), testing::shared_v());
    check_matrix("cross_3x5_weights", s.weights);
}

TEST_CASE("a changed constant in the core would fail the seed check", "[seed]") {
    // The same comparison with a decoder scale of 1.25 instead of 1.2 must not pass.
    matrix q = testing::shared_q_dec();
    for (std::size_t i = 0; i < 5; ++i) q(i, 0) = testing::shared_q()(i, 0) * 1.25;
    const auto s = scaled_dot_product_attention(q, testing::shared_k(), testing::shared_v());
    const seed_table seed = seed_002_table("cross_weights");
    bool all_match = true;
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 5; ++j) all_match = all_match && prints_as(s.weights(i, j), seed.rows[i][j], 4);
    CHECK_FALSE(all_match);
}
