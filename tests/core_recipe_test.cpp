// tests/core_recipe_test.cpp — attention's one recipe (core/recipe.hpp): RoPE's two
// pairings against the rotation written out by hand here (rotate_half for the
// half-split pairing, as GPT-NeoX and Hugging Face write it); the recipe's heads, tile
// and backward against the core functions applied one by one in the recipe's order
// (rotate, then score, then tile and backward on the rotated q and k); and the fast
// path against the reference path.
#include <catch2/catch.hpp>

#include <cmath>

#include <xtensor/xview.hpp>

#include "core/backward.hpp"
#include "core/grouped_query.hpp"
#include "core/mask.hpp"
#include "core/recipe.hpp"

using namespace attn;
using Catch::Matchers::WithinAbs;

namespace {

matrix numbers(std::size_t rows, std::size_t cols, double seed) {
    matrix m({rows, cols});  // [rows, cols]
    for (std::size_t i = 0; i < m.size(); ++i) m.flat(i) = std::sin(seed + 1.7 * static_cast<double>(i)) * 1.3;
    return m;
}

void check_close(const matrix& a, const matrix& b, double tol) {
    REQUIRE(a.shape() == b.shape());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK_THAT(a.flat(i), WithinAbs(b.flat(i), tol));
}

}  // namespace

TEST_CASE("RoPE turns adjacent pairs or half-split pairs by position · base^(-2i/d)", "[core][recipe]") {
    const matrix x = numbers(3, 6, 0.3);  // [n, d] positions 0, 1, 2
    const double base = 100.0;
    const rope_steps adj = rotary_embed(x, base, 0.0, rope_pairing::adjacent);
    const rope_steps half = rotary_embed(x, base, 0.0, rope_pairing::half_split);
    for (std::size_t p = 0; p < 3; ++p) {
        // rotate_half: x·cos + (−x2, x1)·sin with cos/sin repeated over both halves.
        for (std::size_t c = 0; c < 6; ++c) {
            const std::size_t i = c % 3;
            const double th = static_cast<double>(p) * std::pow(base, -2.0 * static_cast<double>(i) / 6.0);
            const double other = c < 3 ? -x(p, c + 3) : x(p, c - 3);
            CHECK_THAT(half.rotated(p, c), WithinAbs(x(p, c) * std::cos(th) + other * std::sin(th), 1e-15));
        }
        // adjacent: (x_2i, x_2i+1) turned by θ_i.
        for (std::size_t i = 0; i < 3; ++i) {
            const double th = static_cast<double>(p) * std::pow(base, -2.0 * static_cast<double>(i) / 6.0);
            const double a = x(p, 2 * i), b = x(p, 2 * i + 1);
            CHECK_THAT(adj.rotated(p, 2 * i), WithinAbs(a * std::cos(th) - b * std::sin(th), 1e-15));
            CHECK_THAT(adj.rotated(p, 2 * i + 1), WithinAbs(a * std::sin(th) + b * std::cos(th), 1e-15));
        }
    }
    CHECK(half.pairing == rope_pairing::half_split);
}

TEST_CASE("the recipe's grouped-query heads are grouped_query_attention's", "[core][recipe]") {
    const matrix q = numbers(5, 8, 0.1), k = numbers(5, 4, 0.7), v = numbers(5, 6, 1.9);  // H = 4, G = 2
    recipe_options o;
    o.heads = 4;
    o.kv_heads = 2;
    o.mask = causal_mask(5, 5);
    const recipe_steps r = attention_recipe(q, k, v, o);
    attention_options a;
    a.mask = causal_mask(5, 5);
    const grouped_query_steps g = grouped_query_attention(q, k, v, 4, 2, a);
    REQUIRE(r.heads.size() == 4);
    for (std::size_t h = 0; h < 4; ++h) {
        CHECK(r.heads[h].group == g.group[h]);
        CHECK(r.heads[h].forward.weights == g.head[h].weights);
    }
    CHECK(r.concat == g.concat);
    o.kv_heads = 3;
    CHECK_THROWS(attention_recipe(q, k, v, o));
}

TEST_CASE("rope, tile and backward apply in the recipe's one order", "[core][recipe]") {
    const matrix q = numbers(4, 4, 0.2), k = numbers(4, 4, 1.1), v = numbers(4, 2, 2.3), d_out = numbers(4, 2, 3.1);
    recipe_options o;
    o.rope = rope_option{10000.0, rope_pairing::half_split};
    o.mask = causal_mask(4, 4);
    o.tile = 3;
    o.grad_output = d_out;
    const recipe_head r = attention_recipe_head(q, k, v, o);
    const matrix rq = rotary_embed(q, 10000.0, 0.0, rope_pairing::half_split).rotated;
    const matrix rk = rotary_embed(k, 10000.0, 0.0, rope_pairing::half_split).rotated;
    attention_options a;
    a.mask = causal_mask(4, 4);
    const attention_steps f = scaled_dot_product_attention(rq, rk, v, a);
    CHECK(r.rope_q->rotated == rq);
    CHECK(r.forward.weights == f.weights);
    tiled_options t;
    t.tile = 3;
    t.mask = a.mask;
    CHECK(r.tiled->output == tiled_attention(rq, rk, v, t).output);
    const attention_grads g = attention_backward(f, d_out);
    CHECK(r.grads->grad_q == g.grad_q);
    CHECK(r.grads->grad_k == g.grad_k);
}

TEST_CASE("the recipe's fast path gives the reference path's stages", "[core][recipe]") {
    const matrix q = numbers(6, 8, 0.4), k = numbers(6, 4, 1.4), v = numbers(6, 4, 2.4);  // H = 4, G = 2
    recipe_options o;
    o.heads = 4;
    o.kv_heads = 2;
    o.rope = rope_option{};
    o.mask = causal_mask(6, 6);
    o.tile = 2;
    o.w_o = numbers(8, 3, 0.9);  // [H·d_v, d_model]
    const recipe_steps ref = attention_recipe(q, k, v, o);
    fast_steps<double> ws;
    std::vector<fast_recipe_head<double>> heads;
    std::vector<recipe_extras_head> extras;
    fast_matrix<double> out;
    fast_recipe(q, k, v, o, fast_recipe_options{}, ws, heads, extras, out);
    REQUIRE(heads.size() == 4);
    for (std::size_t h = 0; h < 4; ++h) {
        check_close(matrix(heads[h].weights), ref.heads[h].forward.weights, 1e-12);
        check_close(matrix(heads[h].z), ref.heads[h].forward.output, 1e-12);
        check_close(extras[h].tiled->output, ref.heads[h].tiled->output, 1e-12);
        CHECK(extras[h].group == ref.heads[h].group);
    }
    check_close(matrix(out), ref.attn_out, 1e-12);
}
