// tests/core_fast_attention_test.cpp — the fast path (core/fast_attention.hpp)
// against the reference path, stage by stage, on random inputs with masks, biases,
// fully masked rows and ±1e4 scores; plus the keep modes (the fused output-only forward
// too), every kernel set the CPU runs, the same bits on any thread count, the
// unmasked softmax row against the masked one, and the vectorised exp.
// The reference path is itself checked against hand numbers and the seeds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include <xtensor/xview.hpp>

#include "core/attention.hpp"
#include "core/fast_attention.hpp"
#include "core/fast_softmax.hpp"
#include "core/kernels.hpp"
#include "core/shape_error.hpp"
#include "core/internal_error.hpp"
#include "support/lcg.hpp"

using namespace attn;
using attn::testing::lcg;
using attn::testing::same_bits;
using Catch::Matchers::WithinAbs;

namespace {

matrix lcg_matrix(lcg& g, std::size_t rows, std::size_t cols) {
    matrix m({rows, cols});  // [rows, cols]
    for (auto& x : m) x = g.next();
    return m;
}

// Normwise: every |a − b| ≤ tol · max |b| over the stage; infinities must match;
// never NaN. Reports the worst cell (one assertion per stage keeps the count small).
template <class A>
void check_stage(const A& fast, const matrix& ref, double tol, const char* stage) {
    INFO("stage " << stage);
    REQUIRE(fast.shape(0) == ref.shape(0));
    REQUIRE(fast.shape(1) == ref.shape(1));
    double scale = 0;
    for (double x : ref)
        if (std::isfinite(x)) scale = std::max(scale, std::abs(x));
    double worst = 0;
    std::size_t wi = 0, wj = 0, bad = 0;
    for (std::size_t i = 0; i < ref.shape(0); ++i)
        for (std::size_t j = 0; j < ref.shape(1); ++j) {
            const double a = double(fast(i, j)), b = ref(i, j);
            double err = std::isinf(b) ? (a == b ? 0.0 : HUGE_VAL) : std::abs(a - b);
            if (std::isnan(a)) err = HUGE_VAL;
            if (err > tol * std::max(scale, 1e-300)) ++bad;
            if (err > worst) worst = err, wi = i, wj = j;
        }
    INFO("worst cell (" << wi << ", " << wj << "): fast " << double(fast(wi, wj)) << " reference " << ref(wi, wj)
                        << ", error " << worst << " vs allowed " << tol * scale);
    CHECK(bad == 0);
}

template <class T>
fast_matrix<T> fast_copy(const matrix& m) {
    return xt::cast<T>(m);
}

}  // namespace

TEMPLATE_TEST_CASE("the fast path equals the reference path stage by stage", "[core][fast]", float, double) {
    const double tol = std::is_same<TestType, double>::value ? 1e-12 : 1e-5;
    const auto shape = GENERATE(table<std::size_t, std::size_t, std::size_t, std::size_t>(
        {{5, 5, 4, 4}, {7, 13, 3, 5}, {33, 70, 16, 9}, {64, 129, 64, 64}, {260, 300, 8, 8}, {40, 600, 16, 8}}));
    // the last two run on the pool with 2 threads; 40 × 600 splits the scores by key blocks
    const std::size_t n_q = std::get<0>(shape), n_k = std::get<1>(shape), d_k = std::get<2>(shape),
                      d_v = std::get<3>(shape);
    const unsigned threads = GENERATE(1u, 2u);
    const std::size_t block = GENERATE(std::size_t(0), std::size_t(3));
    const bool masked = GENERATE(false, true);
    const bool biased = GENERATE(false, true);
    lcg g{n_q * 1000 + n_k};
    // Inputs are rounded to T first so both paths see the same numbers.
    const matrix q = xt::cast<double>(fast_copy<TestType>(lcg_matrix(g, n_q, d_k)));
    const matrix k = xt::cast<double>(fast_copy<TestType>(lcg_matrix(g, n_k, d_k)));
    const matrix v = xt::cast<double>(fast_copy<TestType>(lcg_matrix(g, n_k, d_v)));
    attention_options ro;
    fast_options<TestType> fo;
    fo.threads = threads;
    fo.block_rows = block;
    bool_matrix mask;
    fast_matrix<TestType> bias;
    if (masked) {
        mask = bool_matrix(xt::ones<bool>({n_q, n_k}));
        for (std::size_t i = 0; i < n_q; ++i)
            for (std::size_t j = 0; j < n_k; ++j) mask(i, j) = g.next() > -1.0;  // about a quarter blocked
        for (std::size_t j = 0; j < n_k; ++j) mask(n_q / 2, j) = false;        // one row fully masked
        ro.mask = mask;
        fo.mask = &mask;
    }
    if (biased) {
        bias = fast_copy<TestType>(lcg_matrix(g, n_q, n_k));
        ro.bias = matrix(xt::cast<double>(bias));
        fo.bias = &bias;
    }
    const attention_steps ref = scaled_dot_product_attention(q, k, v, ro);
    fast_steps<TestType> fast;
    fast_attention(fast_copy<TestType>(q), fast_copy<TestType>(k), fast_copy<TestType>(v), fast, fo);

    CHECK_THAT(double(fast.scale), Catch::Matchers::WithinRel(ref.scale, tol));
    check_stage(fast.scores_raw, ref.scores_raw, tol, "scores_raw");
    check_stage(fast.scores_scaled(), ref.scores_scaled, tol, "scores_scaled");
    check_stage(fast.materialise_masked(), ref.scores_masked, tol, "scores_masked");
    check_stage(fast.weights, ref.weights, tol, "weights");
    check_stage(fast.output, ref.output, tol, "output");
    CHECK(fast.row_fully_masked == ref.row_fully_masked);

    const attention_steps back =
        to_attention_steps(fast, fast_copy<TestType>(q), fast_copy<TestType>(k), fast_copy<TestType>(v));
    check_stage(back.scores_masked, ref.scores_masked, tol, "to_attention_steps scores_masked");
    CHECK(back.attend == ref.attend);

    // Output only: whole rows in a scratch give the keep-all output bit for bit, short
    // queries (40 × 600, split by key blocks and merged as flash-decoding does) and the
    // fused forward (online softmax over blocks of 256 keys) the reference numbers.
    fo.keep = keep_mode::output_only;
    fast_steps<TestType> whole;
    fast_attention(fast_copy<TestType>(q), fast_copy<TestType>(k), fast_copy<TestType>(v), whole, fo);
    if (n_q == 40)
        check_stage(whole.output, ref.output, tol, "output only, split by keys");
    else
        CHECK(same_bits(whole.output, fast.output));
    CHECK(whole.row_fully_masked == ref.row_fully_masked);
    fo.whole_row_keys = 0;
    fast_steps<TestType> fused;
    fast_attention(fast_copy<TestType>(q), fast_copy<TestType>(k), fast_copy<TestType>(v), fused, fo);
    check_stage(fused.output, ref.output, tol, "fused output");
    CHECK(fused.row_fully_masked == ref.row_fully_masked);
}

TEMPLATE_TEST_CASE("every kernel set the CPU runs gives the reference numbers in every keep mode",
                   "[core][fast][kernels]", float, double) {
    // generic, AVX2 + FMA, AVX-512 (a set the CPU lacks is clamped to the best it has,
    // so nothing runs an instruction it does not know); n_k = 600 spans three key blocks.
    const double tol = std::is_same<TestType, double>::value ? 1e-12 : 1e-5;
    const auto wanted = GENERATE(kernels::isa::generic, kernels::isa::avx2, kernels::isa::avx512);
    struct restore {
        ~restore() { kernels::force(kernels::best_supported()); }
    } guard;
    INFO("kernel set " << kernels::force(wanted).name);
    lcg g{99};
    const matrix q = xt::cast<double>(fast_copy<TestType>(lcg_matrix(g, 70, 40)));
    const matrix k = xt::cast<double>(fast_copy<TestType>(lcg_matrix(g, 600, 40)));
    const matrix v = xt::cast<double>(fast_copy<TestType>(lcg_matrix(g, 600, 24)));
    const attention_steps ref = scaled_dot_product_attention(q, k, v);
    fast_options<TestType> o;
    o.threads = 2;
    fast_steps<TestType> all, fused, one;
    fast_attention(fast_copy<TestType>(q), fast_copy<TestType>(k), fast_copy<TestType>(v), all, o);
    check_stage(all.scores_raw, ref.scores_raw, tol, "scores_raw");
    check_stage(all.weights, ref.weights, tol, "weights");
    check_stage(all.output, ref.output, tol, "output");
    o.keep = keep_mode::output_only;
    fast_attention(fast_copy<TestType>(q), fast_copy<TestType>(k), fast_copy<TestType>(v), fused, o);
    check_stage(fused.output, ref.output, tol, "output only, whole rows");
    o.whole_row_keys = 0;
    fast_attention(fast_copy<TestType>(q), fast_copy<TestType>(k), fast_copy<TestType>(v), fused, o);
    check_stage(fused.output, ref.output, tol, "output only, online softmax");
    o.whole_row_keys = 4096;
    o.keep = keep_mode::one_query;
    o.query = 69;
    fast_attention(fast_copy<TestType>(q), fast_copy<TestType>(k), fast_copy<TestType>(v), one, o);
    const matrix ref_row = xt::view(ref.output, xt::range(69, 70), xt::all());
    check_stage(one.output, ref_row, tol, "one-query output");
}

TEMPLATE_TEST_CASE("the fast forward gives the same bits on 1, 2 and 3 threads and any block size",
                   "[core][fast][threads]", float, double) {
    lcg g{5};
    const std::size_t n_q = GENERATE(std::size_t(300), std::size_t(40));  // 40 × 600: scores split by key blocks
    const std::size_t n_k = n_q == 40 ? 600 : 520;
    const auto q = fast_copy<TestType>(lcg_matrix(g, n_q, 32));
    const auto k = fast_copy<TestType>(lcg_matrix(g, n_k, 32));
    const auto v = fast_copy<TestType>(lcg_matrix(g, n_k, 16));
    for (const std::size_t whole_row_keys : {std::size_t(0), std::size_t(4096)})  // output only: online, whole rows
    for (const keep_mode mode : {keep_mode::all_stages, keep_mode::output_only}) {
        fast_options<TestType> o;
        o.keep = mode;
        o.whole_row_keys = whole_row_keys;
        fast_steps<TestType> base;
        o.threads = 1;
        fast_attention(q, k, v, base, o);
        for (const unsigned threads : {2u, 3u})
            for (const std::size_t block : {std::size_t(0), std::size_t(7)}) {
                o.threads = threads;
                o.block_rows = block;
                fast_steps<TestType> s;
                fast_attention(q, k, v, s, o);
                INFO("keep mode " << int(mode) << " whole rows to " << whole_row_keys << " threads " << threads
                                  << " block " << block);
                CHECK(same_bits(s.output, base.output));
                CHECK(same_bits(s.weights, base.weights));
            }
    }
}

TEMPLATE_TEST_CASE("fully masked rows give zero weights, zero output and a flag, never NaN", "[core][fast][mask]",
                   float, double) {
    lcg g{7};
    const auto q = fast_copy<TestType>(lcg_matrix(g, 4, 8));
    const auto k = fast_copy<TestType>(lcg_matrix(g, 19, 8));
    const auto v = fast_copy<TestType>(lcg_matrix(g, 19, 8));
    bool_matrix mask = xt::ones<bool>({4, 19});
    for (std::size_t j = 0; j < 19; ++j) mask(1, j) = mask(3, j) = false;
    fast_options<TestType> o;
    o.mask = &mask;
    o.masked_fill = GENERATE(-std::numeric_limits<TestType>::infinity(), TestType(-1e5));
    fast_steps<TestType> s;
    fast_attention(q, k, v, s, o);
    CHECK(s.row_fully_masked == std::vector<bool>{false, true, false, true});
    for (std::size_t j = 0; j < 19; ++j) {
        CHECK(s.weights(1, j) == 0);
        CHECK(s.weights(3, j) == 0);
        CHECK(s.masked(1, j) == o.masked_fill);
    }
    for (std::size_t d = 0; d < 8; ++d) CHECK(s.output(3, d) == 0);
    for (auto w : s.weights) CHECK_FALSE(std::isnan(w));
    for (auto x : s.output) CHECK_FALSE(std::isnan(x));
}

TEMPLATE_TEST_CASE("scores of plus and minus 1e4 stay finite and give exact one-hot weights", "[core][fast]", float,
                   double) {
    // d_k = 1 and no scaling: the scores are the keys themselves.
    const fast_matrix<TestType> q = {{1}, {-1}};
    fast_matrix<TestType> k({19, 1});  // [n_k, d_k] 1e4, −1e4, 0, … (19 keys: a SIMD tail too)
    for (std::size_t j = 0; j < 19; ++j) k(j, 0) = j == 0 ? TestType(1e4) : j == 1 ? TestType(-1e4) : TestType(0);
    fast_matrix<TestType> v({19, 2});
    for (std::size_t j = 0; j < 19; ++j) v(j, 0) = v(j, 1) = TestType(j);
    fast_options<TestType> o;
    o.scale_divisor = 1.0;
    fast_steps<TestType> s;
    fast_attention(q, k, v, s, o);
    CHECK(s.weights(0, 0) == 1);  // e^0 / (e^0 + e^−2e4 + 17·e^−1e4)
    for (std::size_t j = 1; j < 19; ++j) CHECK(s.weights(0, j) == 0);
    CHECK(s.weights(1, 1) == 1);  // the −1e4 key wins for the query −1
    CHECK(s.output(1, 0) == 1);
    for (auto w : s.weights) CHECK(std::isfinite(w));
    CHECK(s.row_fully_masked == std::vector<bool>{false, false});
}

TEST_CASE("output-only and one-query modes give the all-stages numbers without the n by n matrices",
          "[core][fast]") {
    lcg g{11};
    const auto q = fast_copy<float>(lcg_matrix(g, 300, 16));
    const auto k = fast_copy<float>(lcg_matrix(g, 257, 16));
    const auto v = fast_copy<float>(lcg_matrix(g, 257, 16));
    fast_steps<float> all, only, one;
    fast_options<float> o;
    o.threads = 2;
    fast_attention(q, k, v, all, o);
    o.keep = keep_mode::output_only;
    fast_attention(q, k, v, only, o);
    CHECK(only.scores_raw.size() == 0);
    CHECK(only.weights.size() == 0);
    // The fused forward rescales as it goes (online softmax): equal up to rounding.
    for (std::size_t i = 0; i < all.output.size(); ++i)
        if (std::abs(only.output.data()[i] - all.output.data()[i]) > 1e-6f)
            CHECK_THAT(only.output.data()[i], WithinAbs(all.output.data()[i], 1e-6));
    o.keep = keep_mode::one_query;
    o.query = 123;
    fast_attention(q, k, v, one, o);
    REQUIRE(one.scores_raw.shape(0) == 1);
    REQUIRE(one.weights.shape(0) == 1);
    REQUIRE(one.output.shape(0) == 1);
    CHECK(one.first_query == 123);
    for (std::size_t j = 0; j < 257; ++j) {
        CHECK_THAT(one.scores_raw(0, j), WithinAbs(all.scores_raw(123, j), 1e-5));
        CHECK_THAT(one.weights(0, j), WithinAbs(all.weights(123, j), 1e-7));
        CHECK_THAT(one.masked(0, j), WithinAbs(all.masked(123, j), 1e-5));
    }
    for (std::size_t d = 0; d < 16; ++d) CHECK_THAT(one.output(0, d), WithinAbs(all.output(123, d), 1e-6));
    CHECK_THROWS_AS(to_attention_steps(one, q, k, v), attn::internal_error);
    o.query = 300;
    CHECK_THROWS_WITH(fast_attention(q, k, v, one, o), Catch::Contains("query 300 is out of range"));
}

TEST_CASE("a workspace reused for another shape gives that shape's numbers", "[core][fast]") {
    lcg g{3};
    const matrix q1 = lcg_matrix(g, 9, 4), k1 = lcg_matrix(g, 11, 4), v1 = lcg_matrix(g, 11, 2);
    const matrix q2 = lcg_matrix(g, 3, 6), k2 = lcg_matrix(g, 5, 6), v2 = lcg_matrix(g, 5, 7);
    fast_steps<double> s;
    fast_attention<double>(q1, k1, v1, s);
    fast_attention<double>(q2, k2, v2, s);
    const auto ref = scaled_dot_product_attention(q2, k2, v2);
    check_stage(s.weights, ref.weights, 1e-12, "weights");
    check_stage(s.output, ref.output, 1e-12, "output");
}

TEST_CASE("the fast path refuses shapes that do not chain with the reference messages", "[core][fast][errors]") {
    const fast_matrix<float> q = xt::zeros<float>({2, 4});
    const fast_matrix<float> k3 = xt::zeros<float>({5, 3});
    const fast_matrix<float> v = xt::zeros<float>({5, 4});
    fast_steps<float> s;
    CHECK_THROWS_WITH(fast_attention(q, k3, v, s),
                      Catch::Contains("K has d_k = 3 but Q has d_k = 4") && Catch::Contains("Q [n_q=2, d_k=4]"));
    const fast_matrix<float> k = xt::zeros<float>({5, 4});
    const bool_matrix mask = xt::ones<bool>({5, 5});
    fast_options<float> o;
    o.mask = &mask;
    CHECK_THROWS_AS(fast_attention(q, k, v, s, o), shape_error);
}

TEMPLATE_TEST_CASE("the vectorised exp matches std::exp from -750 to 0", "[core][fast]", float, double) {
    const double tol = std::is_same<TestType, double>::value ? 1e-15 : 4e-7;  // a few ulp
    std::vector<TestType> x;
    for (int i = 0; i <= 30000; ++i) x.push_back(TestType(-750.0 * i / 30000.0));
    x.push_back(-std::numeric_limits<TestType>::infinity());
    x.push_back(TestType(-0.0));
    std::vector<TestType> y = x;
    fast_exp_nonpositive(y.data(), y.size());
    std::size_t bad = 0;
    double worst = 0, worst_x = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double want = std::exp(double(x[i]));
        const double lowest = std::is_same<TestType, double>::value ? 3.3e-308 : 1.7e-38;
        // Below the smallest normal the kernel may flush to 0; above, it must be within tol.
        const double err = want < lowest ? (double(y[i]) <= lowest ? 0.0 : 1.0) : std::abs(double(y[i]) - want) / want;
        if (err > tol) ++bad;
        if (err > worst) worst = err, worst_x = double(x[i]);
    }
    INFO("worst relative error " << worst << " at x = " << worst_x);
    CHECK(bad == 0);
    CHECK(y[x.size() - 2] == 0);  // e^−inf
    CHECK(y[x.size() - 1] == 1);  // e^−0
}

TEMPLATE_TEST_CASE("a row with no mask and no bias gets the bits of the masked softmax with nothing masked",
                   "[core][fast][kernels]", float, double) {
    // softmax_row takes a shorter road when nothing is masked (the max read from the raw
    // scores, the scaled scores never written): it must give the same bits, NaN and ±inf included.
    const auto wanted = GENERATE(kernels::isa::generic, kernels::isa::avx2, kernels::isa::avx512);
    struct restore {
        ~restore() { kernels::force(kernels::best_supported()); }
    } guard;
    const auto& ops = kernels::force(wanted).template ops<TestType>();
    INFO("kernel set " << kernels::active().name);
    lcg g{123};
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(5), std::size_t(37), std::size_t(300)})
        for (const double scale : {0.125, 3.0, 1e-3}) {
            std::vector<TestType> raw(n);
            for (auto& x : raw) x = TestType(g.next() * 40.0);
            if (n == 37) raw[36] = std::numeric_limits<TestType>::quiet_NaN();  // in the scalar tail
            if (n == 300) raw[7] = std::numeric_limits<TestType>::infinity();
            std::unique_ptr<bool[]> all(new bool[n + 1]);  // [n] every key visible
            std::fill(all.get(), all.get() + n + 1, true);
            softmax_row_inputs<TestType> plain, masked;
            plain.inv_scale = masked.inv_scale = TestType(scale);
            masked.attend = all.get();
            std::vector<TestType> w_plain(n, TestType(-1)), w_masked(n, TestType(-2));
            const bool none_plain = ops.softmax_row(raw.data(), w_plain.data(), n, plain);
            const bool none_masked = ops.softmax_row(raw.data(), w_masked.data(), n, masked);
            INFO("n " << n << " inv_scale " << scale);
            CHECK(none_plain == none_masked);
            CHECK((n == 0 || std::memcmp(w_plain.data(), w_masked.data(), n * sizeof(TestType)) == 0));
        }
}
