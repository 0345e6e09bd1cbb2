// tests/core_attention_test.cpp — each stage of the core against numbers worked by
// hand (independently of the code), plus masks, non-square shapes and stability.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/attention.hpp"
#include "core/mask.hpp"
#include "core/shape_error.hpp"
#include "support/shared_example.hpp"

using namespace attn;
using Catch::Matchers::WithinAbs;

TEST_CASE("raw scores are Q times K transposed, query by key", "[core]") {
    // Hand: Q_dec[The] = [1.2, 0, 1.1, 0]; K[mat] = [1, 0, .5, .5] → 1.2 + 0.55 = 1.75.
    const auto s = scaled_dot_product_attention(testing::shared_q_dec(), testing::shared_k(), testing::shared_v());
    REQUIRE(s.scores_raw.shape(0) == 5);
    REQUIRE(s.scores_raw.shape(1) == 5);
    CHECK_THAT(s.scores_raw(0, 4), WithinAbs(1.75, 1e-12));
    CHECK_THAT(s.scores_raw(1, 0), WithinAbs(1.6 + 0.9, 1e-12));   // cat·The
    CHECK_THAT(s.scores_raw(3, 3), WithinAbs(1.1 + 0.9, 1e-12));   // on·on
}

TEST_CASE("scaled scores divide by the square root of d_k", "[core]") {
    const auto s = scaled_dot_product_attention(testing::shared_q_dec(), testing::shared_k(), testing::shared_v());
    CHECK(s.scale == 2.0);
    CHECK_THAT(s.scores_scaled(0, 1), WithinAbs(2.3 / 2.0, 1e-12));
    CHECK_THAT(s.scores_scaled(4, 4), WithinAbs(1.65 / 2.0, 1e-12));
}

TEST_CASE("softmax weights match a hand computation and each row sums to one", "[core]") {
    const auto s = scaled_dot_product_attention(testing::shared_q(), testing::shared_k(), testing::shared_v());
    // Self-attention row "cat": raw = [3, 0, 2, 1, 0.5] → scaled [1.5, 0, 1, 0.5, 0.25].
    const double e[5] = {std::exp(1.5), 1.0, std::exp(1.0), std::exp(0.5), std::exp(0.25)};
    const double sum = e[0] + e[1] + e[2] + e[3] + e[4];
    for (int j = 0; j < 5; ++j) CHECK_THAT(s.weights(1, j), WithinAbs(e[j] / sum, 1e-12));
    for (std::size_t i = 0; i < 5; ++i) {
        double row = 0;
        for (std::size_t j = 0; j < 5; ++j) row += s.weights(i, j);
        CHECK_THAT(row, WithinAbs(1.0, 1e-12));
    }
}

TEST_CASE("output is the weighted sum of value rows and equals the sum of contributions", "[core]") {
    const auto s = scaled_dot_product_attention(testing::shared_q_dec(), testing::shared_k(), testing::shared_v());
    for (std::size_t i = 0; i < 5; ++i) {
        const matrix c = contributions_for_query(s, i);  // [n_k, d_v]
        for (std::size_t d = 0; d < 4; ++d) {
            double by_hand = 0, from_contrib = 0;
            for (std::size_t j = 0; j < 5; ++j) {
                by_hand += s.weights(i, j) * testing::shared_v()(j, d);
                from_contrib += c(j, d);
            }
            CHECK_THAT(s.output(i, d), WithinAbs(by_hand, 1e-12));
            CHECK_THAT(s.output(i, d), WithinAbs(from_contrib, 1e-12));
        }
    }
    const tensor3 all = all_contributions(s);
    CHECK(all.shape(0) == 5);
    CHECK(all.shape(2) == 4);
    CHECK_THAT(all(0, 4, 0), WithinAbs(0.5 * s.weights(0, 4), 1e-15));
}

TEST_CASE("cross-attention with 3 decoder and 5 encoder tokens gives a 3 by 5 matrix", "[core]") {
    matrix q3 = xt::view(testing::shared_q_dec(), xt::range(0, 3), xt::all());
    const auto s = scaled_dot_product_attention(q3, testing::shared_k(), testing::shared_v());
    CHECK(s.weights.shape(0) == 3);
    CHECK(s.weights.shape(1) == 5);
    CHECK(s.output.shape(0) == 3);
    CHECK(s.output.shape(1) == 4);
    // First decoder token by hand (seed exercise 2): scaled [0, 1.15, .6, .55, .875].
    const double e[5] = {1.0, std::exp(1.15), std::exp(0.6), std::exp(0.55), std::exp(0.875)};
    const double sum = e[0] + e[1] + e[2] + e[3] + e[4];
    CHECK_THAT(s.output(0, 0), WithinAbs((e[0] + 0.5 * e[4]) / sum, 1e-12));
    CHECK_THAT(s.output(0, 1), WithinAbs((e[1] + 0.5 * e[4]) / sum, 1e-12));
}

TEST_CASE("a padding mask gives padded keys exactly zero weight", "[core][mask]") {
    attention_options o;
    o.mask = padding_mask(5, {false, false, false, true, true});
    const auto s = scaled_dot_product_attention(testing::shared_q_dec(), testing::shared_k(), testing::shared_v(), o);
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK(s.weights(i, 3) == 0.0);
        CHECK(s.weights(i, 4) == 0.0);
        CHECK(std::isinf(s.scores_masked(i, 3)));
        CHECK_THAT(s.weights(i, 0) + s.weights(i, 1) + s.weights(i, 2), WithinAbs(1.0, 1e-12));
    }
    // Row "The": scaled [0, 1.15, 0.6] renormalised over three keys.
    const double sum = 1.0 + std::exp(1.15) + std::exp(0.6);
    CHECK_THAT(s.weights(0, 1), WithinAbs(std::exp(1.15) / sum, 1e-12));
    CHECK(s.weights(0, 1) == Approx(0.5281).margin(5e-5));
}

TEST_CASE("a causal mask blocks future keys and row cat is 0.8176 0.1824", "[core][mask]") {
    attention_options o;
    o.mask = causal_mask(5, 5);
    const auto s = scaled_dot_product_attention(testing::shared_q(), testing::shared_k(), testing::shared_v(), o);
    CHECK(s.weights(0, 0) == 1.0);
    CHECK_THAT(s.weights(1, 0), WithinAbs(std::exp(1.5) / (std::exp(1.5) + 1.0), 1e-12));
    CHECK(s.weights(1, 0) == Approx(0.8176).margin(5e-5));
    for (std::size_t j = 2; j < 5; ++j) CHECK(s.weights(1, j) == 0.0);
}

TEST_CASE("a query row whose keys are all masked gives zero weights and a flag, never NaN", "[core][mask]") {
    attention_options o;
    bool_matrix m = full_mask(3, 5);
    for (std::size_t j = 0; j < 5; ++j) m(1, j) = false;
    o.mask = m;
    matrix q3 = xt::view(testing::shared_q(), xt::range(0, 3), xt::all());
    const auto s = scaled_dot_product_attention(q3, testing::shared_k(), testing::shared_v(), o);
    CHECK(s.row_fully_masked == std::vector<bool>{false, true, false});
    CHECK(s.any_row_fully_masked());
    for (std::size_t j = 0; j < 5; ++j) CHECK(s.weights(1, j) == 0.0);
    for (std::size_t d = 0; d < 4; ++d) CHECK(s.output(1, d) == 0.0);
    for (double w : s.weights) CHECK_FALSE(std::isnan(w));

    SECTION("also when the masked fill is a finite constant like -1e5") {
        o.masked_fill = -1e5;
        const auto f = scaled_dot_product_attention(q3, testing::shared_k(), testing::shared_v(), o);
        CHECK(f.row_fully_masked[1]);
        for (std::size_t j = 0; j < 5; ++j) CHECK(f.weights(1, j) == 0.0);
    }
}

TEST_CASE("softmax stays finite and exact for scores of plus and minus 1e4", "[core]") {
    const matrix scores = {{1e4, -1e4, 0.0}, {1e4, 1e4, 1e4}, {-1e4, -1e4, -1e4 + std::log(3.0)}};
    std::vector<bool> fully;
    const matrix w = softmax_rows(scores, &fully);
    for (double x : w) CHECK(std::isfinite(x));
    CHECK(w(0, 0) == 1.0);
    CHECK(w(0, 1) == 0.0);
    for (std::size_t j = 0; j < 3; ++j) CHECK_THAT(w(1, j), WithinAbs(1.0 / 3.0, 1e-15));
    CHECK_THAT(w(2, 2), WithinAbs(3.0 / 5.0, 1e-12));
    CHECK(fully == std::vector<bool>{false, false, false});
}

TEST_CASE("an additive bias is added to the scaled scores before the softmax", "[core]") {
    attention_options o;
    o.bias = matrix(xt::zeros<double>({5, 5}));
    (*o.bias)(0, 0) = -1.0;
    const auto s = scaled_dot_product_attention(testing::shared_q(), testing::shared_k(), testing::shared_v(), o);
    CHECK_THAT(s.scores_masked(0, 0), WithinAbs(s.scores_scaled(0, 0) - 1.0, 1e-15));
    CHECK_THAT(s.scores_masked(0, 1), WithinAbs(s.scores_scaled(0, 1), 1e-15));
}

TEST_CASE("shapes that do not chain are refused naming both shapes", "[core][errors]") {
    const matrix q = xt::zeros<double>({2, 4});
    const matrix k3 = xt::zeros<double>({5, 3});
    const matrix v = xt::zeros<double>({5, 4});
    CHECK_THROWS_WITH(scaled_dot_product_attention(q, k3, v),
                      Catch::Contains("K has d_k = 3 but Q has d_k = 4") && Catch::Contains("Q [n_q=2, d_k=4]"));
    const matrix k = xt::zeros<double>({5, 4});
    const matrix v4 = xt::zeros<double>({4, 4});
    CHECK_THROWS_AS(scaled_dot_product_attention(q, k, v4), shape_error);
    attention_options o;
    o.mask = full_mask(5, 5);
    CHECK_THROWS_WITH(scaled_dot_product_attention(q, k, v, o), Catch::Contains("must be [n_q, n_k] = [2, 5]"));
}
