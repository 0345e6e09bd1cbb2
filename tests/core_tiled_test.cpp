// tests/core_tiled_test.cpp — lessons 16–19 in the core against independent NumPy
// (tests/data/core_tiled_reference.txt, made and re-checked by
// tests/python/core_tiled_reference.py / test_core_new_stages.py) to 1e-12: the online
// softmax block by block, the tiled forward against the one-shot one (the stated
// relation), rotary embeddings, grouped-query attention and window masks.
#include <catch2/catch.hpp>

#include <cmath>

#include <xtensor/xview.hpp>

#include "core/grouped_query.hpp"
#include "core/mask.hpp"
#include "core/rope.hpp"
#include "core/shape_error.hpp"
#include "core/tiled.hpp"
#include "core/window.hpp"
#include "support/core_reference_data.hpp"

using namespace attn;
using attn::testing::check_all_close;
using Catch::Matchers::WithinAbs;

namespace {
const attn::testing::reference_data& tiled_ref() {
    static const attn::testing::reference_data d("core_tiled_reference.txt");
    return d;
}
matrix as_double(const bool_matrix& b) {
    matrix m(b.shape());
    for (std::size_t i = 0; i < b.size(); ++i) m.flat(i) = b.flat(i) ? 1.0 : 0.0;
    return m;
}
}  // namespace

TEST_CASE("the online softmax keeps the same running max, sum and partial output as NumPy", "[core][tiled]") {
    tiled_options o;
    o.tile = 3;
    const auto t = tiled_attention(tiled_ref().mat("tiled.q"), tiled_ref().mat("tiled.k"),
                                   tiled_ref().mat("tiled.v"), o);
    CHECK(t.blocks == 3);
    check_all_close(t.running_max, tiled_ref().mat("tiled.running_max"), 1e-12, "running max");
    check_all_close(t.running_sum, tiled_ref().mat("tiled.running_sum"), 1e-12, "running sum");
    check_all_close(t.correction, tiled_ref().mat("tiled.correction"), 1e-12, "correction");
    check_all_close(t.partial_output, tiled_ref().t3("tiled.partial_output"), 1e-12, "partial output");
    check_all_close(t.output, tiled_ref().mat("tiled.output"), 1e-12, "output");
    o.skip_rescale = true;
    const auto wrong = tiled_attention(tiled_ref().mat("tiled.q"), tiled_ref().mat("tiled.k"),
                                       tiled_ref().mat("tiled.v"), o);
    check_all_close(wrong.output, tiled_ref().mat("tiled.no_rescale"), 1e-12, "the no-rescale mistake");
}

TEST_CASE("the tiled forward with a causal mask matches NumPy block by block", "[core][tiled]") {
    const matrix x = tiled_ref().mat("causal.x");
    tiled_options o;
    o.tile = 2;
    o.mask = causal_mask(6, 6);
    const auto t = tiled_attention(x, x, x, o);
    check_all_close(t.running_max, tiled_ref().mat("causal.running_max"), 1e-12, "running max");
    check_all_close(t.running_sum, tiled_ref().mat("causal.running_sum"), 1e-12, "running sum");
    check_all_close(t.partial_output, tiled_ref().t3("causal.partial_output"), 1e-12, "partial output");
    check_all_close(t.output, tiled_ref().mat("causal.output"), 1e-12, "output");
}

// The stated relation (core/tiled.hpp): the same numbers up to rounding, not bit for
// bit — the dot products are summed in another order (BLAS in the one-shot path), the
// exponentials are rescaled, and the division by the row sum comes last.
TEST_CASE("the tiled output equals the one-shot output to rounding for every tile size", "[core][tiled]") {
    const matrix q = tiled_ref().mat("tiled.q"), k = tiled_ref().mat("tiled.k"), v = tiled_ref().mat("tiled.v");
    const auto once = scaled_dot_product_attention(q, k, v);
    const std::size_t tile = GENERATE(1, 2, 3, 7, 100);
    tiled_options o;
    o.tile = tile;
    const auto t = tiled_attention(q, k, v, o);
    for (std::size_t i = 0; i < once.n_q(); ++i)
        CHECK_THAT(t.running_max(i, t.blocks - 1), WithinAbs(xt::amax(xt::row(once.scores_scaled, i))(), 1e-14));
    for (std::size_t i = 0; i < t.output.size(); ++i) {
        CHECK_THAT(t.output.flat(i), WithinAbs(once.output.flat(i), 1e-14 * std::max(1.0, std::abs(once.output.flat(i)))));
        CHECK(std::round(t.output.flat(i) * 1e4) == std::round(once.output.flat(i) * 1e4));
    }
    CHECK(t.extra_values == 2 * once.n_q() + tile);
}

TEST_CASE("a tile of zero keys is refused", "[core][tiled]") {
    tiled_options o;
    o.tile = 0;
    CHECK_THROWS_AS(tiled_attention(tiled_ref().mat("tiled.q"), tiled_ref().mat("tiled.k"),
                                    tiled_ref().mat("tiled.v"), o),
                    shape_error);
}

TEST_CASE("rotary embeddings match NumPy's complex-number rotation", "[core][rope]") {
    const matrix x = tiled_ref().mat("rope.x");
    check_all_close(rotary_embed(x).rotated, tiled_ref().mat("rope.rotated"), 1e-12, "base 10000");
    check_all_close(rotary_embed(x, 10000.0, 3.0).rotated, tiled_ref().mat("rope.shifted"), 1e-12, "positions + 3");
    check_all_close(rotary_embed(x, 100.0).rotated, tiled_ref().mat("rope.base100"), 1e-12, "base 100");
    CHECK_THROWS_AS(rotary_embed(matrix(xt::zeros<double>({2, 3}))), shape_error);
}

TEST_CASE("rotated scores depend only on the distance between positions", "[core][rope]") {
    const matrix x = tiled_ref().mat("rope.x");
    const matrix q = xt::view(x, xt::range(0, 1), xt::all()), k = xt::view(x, xt::range(1, 2), xt::all());
    const double first = xt::sum(rotary_embed_at(q, {4.0}).rotated * rotary_embed_at(k, {1.0}).rotated)();
    for (double shift : {1.0, 5.0, 100.0})
        CHECK_THAT(xt::sum(rotary_embed_at(q, {4.0 + shift}).rotated * rotary_embed_at(k, {1.0 + shift}).rotated)(),
                   WithinAbs(first, 1e-12));
}

TEST_CASE("grouped-query attention matches NumPy's repeated K/V heads", "[core][gqa]") {
    const matrix q = tiled_ref().mat("gqa.q"), k = tiled_ref().mat("gqa.k"), v = tiled_ref().mat("gqa.v");
    attention_options o;
    o.mask = causal_mask(5, 5);
    const auto g2 = grouped_query_attention(q, k, v, 4, 2, o);
    CHECK(g2.group == std::vector<std::size_t>{0, 0, 1, 1});
    check_all_close(g2.concat, tiled_ref().mat("gqa.g2"), 1e-12, "G = 2");
    const matrix k1 = xt::view(k, xt::all(), xt::range(0, 3)), v1 = xt::view(v, xt::all(), xt::range(0, 2));
    check_all_close(grouped_query_attention(q, k1, v1, 4, 1, o).concat, tiled_ref().mat("gqa.g1"), 1e-12, "G = 1");
    CHECK_THROWS_AS(grouped_query_attention(q, k, v, 4, 3, o), shape_error);
}

TEST_CASE("the KV cache shrinks by H/G", "[core][gqa]") {
    // 32 layers, d_head 128, 4096 tokens, batch 1, fp16: H = 32 heads vs G = 8 vs G = 1.
    CHECK(kv_cache(32, 32, 128, 4096, 1, 2).bytes == 2147483648ull);
    CHECK(kv_cache(32, 8, 128, 4096, 1, 2).bytes == 536870912ull);
    CHECK(kv_cache(32, 1, 128, 4096, 1, 2).bytes == 67108864ull);
}

TEST_CASE("window masks match NumPy and attention under them too", "[core][window]") {
    check_all_close(as_double(window_mask(7, 7, 2, true)), tiled_ref().mat("window.causal"), 0.0, "causal window");
    check_all_close(as_double(window_mask(7, 7, 2, false)), tiled_ref().mat("window.both"), 0.0, "two-sided window");
    const matrix x = tiled_ref().mat("window.x");
    attention_options o;
    o.mask = window_mask(7, 7, 2, true);
    check_all_close(scaled_dot_product_attention(x, x, x, o).output, tiled_ref().mat("window.output"), 1e-12, "output");
}

TEST_CASE("window cost counts visible pairs and the receptive field grows by w per layer", "[core][window]") {
    const std::size_t n = GENERATE(1, 5, 9, 40), w = GENERATE(0, 1, 3, 50);
    const bool causal = GENERATE(true, false);
    CHECK(windowed_attention_macs(n, w, causal, 4, 4) == visible_pairs(window_mask(n, n, w, causal)) * 8);
    CHECK(receptive_field(w, 3) == 3 * w);
}
