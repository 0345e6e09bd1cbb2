// tests/core_fast_heads_test.cpp — several heads in one call (core/fast_heads.hpp): small
// heads run side by side on the pool, each on one thread; every head must get the bits
// fast_attention gives it alone, and the reference numbers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/attention.hpp"
#include "core/fast_heads.hpp"
#include "core/shape_error.hpp"
#include "support/lcg.hpp"

using namespace attn;
using attn::testing::lcg;
using attn::testing::same_bits;

namespace {

template <class T>
fast_matrix<T> lcg_fast_matrix(lcg& g, std::size_t rows, std::size_t cols) {
    fast_matrix<T> m({rows, cols});  // [rows, cols]
    for (auto& x : m) x = static_cast<T>(g.next());
    return m;
}

}  // namespace

TEMPLATE_TEST_CASE("heads in one call get the bits each gets alone on any thread count", "[core][fast][heads]", float,
                   double) {
    const unsigned threads = GENERATE(1u, 2u, 3u);
    const keep_mode mode = GENERATE(keep_mode::all_stages, keep_mode::output_only);
    lcg g{17};
    const std::size_t n_q[] = {130, 64, 200, 9, 130};
    const std::size_t n_k[] = {130, 300, 200, 40, 260};
    std::vector<fast_matrix<TestType>> q, k, v;
    for (std::size_t h = 0; h < 5; ++h) {
        q.push_back(lcg_fast_matrix<TestType>(g, n_q[h], 16));
        k.push_back(lcg_fast_matrix<TestType>(g, n_k[h], 16));
        v.push_back(lcg_fast_matrix<TestType>(g, n_k[h], 8));
    }
    fast_options<TestType> o;
    o.keep = mode;
    std::vector<fast_steps<TestType>> alone(5), together(5);
    for (std::size_t h = 0; h < 5; ++h) fast_attention(q[h], k[h], v[h], alone[h], o);
    std::vector<fast_head<TestType>> heads;
    for (std::size_t h = 0; h < 5; ++h) heads.push_back({&q[h], &k[h], &v[h], &together[h]});
    o.threads = threads;
    fast_attention_heads(heads, o);
    for (std::size_t h = 0; h < 5; ++h) {
        INFO("head " << h << " threads " << threads);
        CHECK(same_bits(together[h].output, alone[h].output));
        CHECK(same_bits(together[h].weights, alone[h].weights));
        CHECK(together[h].row_fully_masked == alone[h].row_fully_masked);
    }
    // And against the reference path (double: 1e-12 of the largest output).
    const attention_steps ref = scaled_dot_product_attention(xt::cast<double>(q[2]), xt::cast<double>(k[2]),
                                                             xt::cast<double>(v[2]));
    const double tol = std::is_same<TestType, double>::value ? 1e-12 : 1e-5;
    double worst = 0;
    for (std::size_t i = 0; i < ref.output.size(); ++i)
        worst = std::max(worst, std::abs(double(together[2].output.data()[i]) - ref.output.data()[i]));
    CHECK(worst <= tol * 2.0);  // outputs are weighted means of values in [-2, 2)
}

TEST_CASE("a head whose shapes do not chain is refused before any head runs", "[core][fast][heads][errors]") {
    lcg g{3};
    const auto q = lcg_fast_matrix<double>(g, 40, 8), k = lcg_fast_matrix<double>(g, 40, 8), v = lcg_fast_matrix<double>(g, 40, 4);
    const auto bad_k = lcg_fast_matrix<double>(g, 40, 7);  // d_k = 7 against Q's 8
    std::vector<fast_steps<double>> steps(4);
    std::vector<fast_head<double>> heads{{&q, &k, &v, &steps[0]}, {&q, &k, &v, &steps[1]}, {&q, &bad_k, &v, &steps[2]},
                                         {&q, &k, &v, &steps[3]}};
    fast_options<double> o;
    o.threads = 2;
    CHECK_THROWS_AS(fast_attention_heads(heads, o), shape_error);
    CHECK_THROWS_WITH(fast_attention_heads(heads, o), Catch::Contains("d_k = 7"));
    for (const auto& s : steps) CHECK(s.output.size() == 0);
}
