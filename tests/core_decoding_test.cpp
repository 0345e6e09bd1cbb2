// tests/core_decoding_test.cpp — step-by-step decoding with caches gives the numbers of
// the full causal decoder block, the caches grow as described, and the FLOP and memory
// counts follow formulas worked by hand.
#include <catch2/catch.hpp>

#include <xtensor/xview.hpp>

#include "core/decoding.hpp"
#include "core/mask.hpp"
#include "core/prng.hpp"
#include "core/shape_error.hpp"
#include "core/stacking.hpp"
#include "support/core_reference_data.hpp"

using namespace attn;
using attn::testing::check_all_close;
using Catch::Matchers::WithinAbs;

namespace {
matrix random_matrix(prng& g, std::size_t r, std::size_t c) {
    matrix m({r, c});  // [r, c]
    for (double& v : m) v = g.normal() * 0.5;
    return m;
}
vector random_vector(prng& g, std::size_t n) {
    vector v = xt::zeros<double>({n});  // [n]
    for (double& x : v) x = g.normal() * 0.1;
    return v;
}
// d = 4, H = 2 (d_k = d_v = 2), d_ff = 8.
decoder_block_weights random_block(prng& g, norm_placement placement) {
    auto mh = [&] {
        return multi_head_weights{random_matrix(g, 4, 4), random_matrix(g, 4, 4), random_matrix(g, 4, 4),
                                  random_matrix(g, 4, 4), 2};
    };
    auto ln = [&] { return layer_norm_params{random_vector(g, 4) + 1.0, random_vector(g, 4), 1e-5}; };
    const multi_head_weights self = mh(), cross = mh();
    const ffn_weights f{random_matrix(g, 4, 8), random_vector(g, 8), random_matrix(g, 8, 4), random_vector(g, 4),
                        activation::relu};
    return {self, cross, f, ln(), ln(), ln(), placement};
}
}  // namespace

TEST_CASE("decoding step by step with caches equals the full causal decoder block", "[core]") {
    const auto placement = GENERATE(norm_placement::post, norm_placement::pre);
    prng g(2024);
    const auto w = random_block(g, placement);
    const matrix enc = random_matrix(g, 5, 4);  // [n_src = 5, d]
    const matrix y = random_matrix(g, 4, 4);    // [n_tgt = 4, d]
    const auto full = decoder_block(y, enc, w);
    decoder_session session(enc, w);
    for (std::size_t t = 0; t < 4; ++t) {
        const auto& step = session.step(matrix(xt::view(y, xt::range(t, t + 1), xt::all())));
        CHECK(step.position == t);
        CHECK(session.self_k_cache().shape(0) == t + 1);  // one row per step
        CHECK(step.self_attention.head[0].weights.shape(1) == t + 1);
        CHECK(step.cross_attention.head[0].weights.shape(1) == 5);
        for (std::size_t j = 0; j <= t; ++j)  // the new query's weights = row t of the full block's
            CHECK_THAT(step.self_attention.head[1].weights(0, j), WithinAbs(full.self_attention.head[1].weights(t, j), 1e-12));
    }
    check_all_close(session.outputs(), full.output, 1e-12, "step outputs vs full block");
    CHECK(session.cross_k().shape(0) == 5);
    const auto again = decode_sequence(y, enc, w);
    CHECK(again.size() == 4);
    CHECK(again[3].output(0, 2) == session.steps()[3].output(0, 2));
}

TEST_CASE("decoding counts FLOPs and cache memory per step", "[core]") {
    prng g(5);
    const auto w = random_block(g, norm_placement::post);
    const matrix enc = random_matrix(g, 5, 4);
    decoder_session session(enc, w);
    session.step(random_matrix(g, 1, 4));
    const auto& s = session.step(random_matrix(g, 1, 4));  // step 2: t = 2 cached rows
    const auto& k = s.counts;
    // By hand, d = 4, H·d_k = H·d_v = 4, d_ff = 8, n_src = 5, t = 2:
    //   self:  q, k, v 3·2·4·4 = 96; scores 2·2·4 = 16; a·V 16; W_O 2·4·4 = 32 → 160
    //   cross: q 32; scores 2·5·4 = 40; a·V 40; W_O 32 → 144
    //   FFN:   2·4·8 + 2·8·4 = 128
    CHECK(k.step == 2);
    CHECK(k.self_cache_rows == 2);
    CHECK(k.flops_self_attention == 160);
    CHECK(k.flops_cross_attention == 144);
    CHECK(k.flops_ffn == 128);
    CHECK(k.flops_total == 432);
    // Cross K, V once: 2·5·4·(4 + 4) = 320.
    CHECK(session.cross_kv_flops() == 320);
    // Without cache: self 2·96 + 2·4·(4+4)... = 192 + 64 + 64 = 320; cross 2·32 + 320 + 2·2·5·8 + 2·32 = 608; FFN 256.
    CHECK(k.flops_without_cache == 320 + 608 + 256);
    // Cache: self 2·(4 + 4) = 16 numbers, cross 5·(4 + 4) = 40.
    CHECK(k.cache_values == 56);
    CHECK(k.cache_bytes == 448);
}

TEST_CASE("cross-attention cost per step grows with n_src, so N_dec steps cost N_dec times N_enc times d", "[core]") {
    prng g(9);
    const auto w = random_block(g, norm_placement::pre);
    const auto run = [&](std::size_t n_src) {
        decoder_session session(random_matrix(g, n_src, 4), w);
        return session.step(random_matrix(g, 1, 4)).counts.flops_cross_attention;
    };
    // Each extra source token adds 2·H·d_k + 2·H·d_v = 16 FLOPs to every step.
    CHECK(run(10) - run(5) == 5 * 16);
}

TEST_CASE("a decoding step refuses a token of the wrong width", "[core]") {
    prng g(1);
    const auto w = random_block(g, norm_placement::post);
    decoder_session session(random_matrix(g, 3, 4), w);
    CHECK_THROWS_AS(session.step(random_matrix(g, 1, 5)), shape_error);
    CHECK_THROWS_AS(decoder_session(random_matrix(g, 3, 6), w), shape_error);
}

TEST_CASE("identity-projection attention is (X X transposed) X", "[core]") {
    // By hand: X = [[1, 0], [1, 1]] → XXᵀ = [[1, 1], [1, 2]] → (XXᵀ)X = [[2, 1], [3, 2]].
    const auto s = identity_projection_attention(matrix{{1, 0}, {1, 1}});
    CHECK(s.gram(1, 1) == 2.0);
    CHECK(s.output(0, 0) == 2.0);
    CHECK(s.output(0, 1) == 1.0);
    CHECK(s.output(1, 0) == 3.0);
    CHECK(s.output(1, 1) == 2.0);
    // Cubic, not linear: doubling X multiplies the output by 8.
    const auto twice = identity_projection_attention(matrix{{2, 0}, {2, 2}});
    CHECK(twice.output(1, 0) == 24.0);
}

TEST_CASE("two stacked attention layers without nonlinearity collapse into one", "[core]") {
    prng g(14);
    const matrix x = random_matrix(g, 5, 4);
    const single_head_weights w1{random_matrix(g, 4, 3), random_matrix(g, 4, 3), random_matrix(g, 4, 3)};
    const single_head_weights w2{random_matrix(g, 3, 2), random_matrix(g, 3, 2), random_matrix(g, 3, 2)};
    const auto s = stacked_attention(x, w1, w2);
    check_all_close(s.collapsed_output, s.layer2.output, 1e-12, "A* X V* equals the second layer's output");
    for (std::size_t i = 0; i < 5; ++i) {
        double row = 0;
        for (std::size_t j = 0; j < 5; ++j) row += s.combined_weights(i, j);
        CHECK_THAT(row, WithinAbs(1.0, 1e-12));  // A* is still a set of attention weights
    }
    CHECK(s.combined_value.shape(0) == 4);
    CHECK(s.combined_value.shape(1) == 2);
}

TEST_CASE("decoding with a padded source equals the full block with the same padding", "[core]") {
    prng g(77);
    const auto w = random_block(g, norm_placement::post);
    const matrix enc = random_matrix(g, 5, 4);  // last two source tokens are padding
    const matrix y = random_matrix(g, 3, 4);
    const std::vector<bool> padded = {false, false, false, true, true};
    decoder_block_options full_options;
    full_options.cross_options.mask = padding_mask(3, padded);  // [n_tgt, n_src]
    attention_options step_options;
    step_options.mask = padding_mask(1, padded);  // [1, n_src]: one query per step
    const auto full = decoder_block(y, enc, w, full_options);
    const auto steps = decode_sequence(y, enc, w, step_options);
    for (std::size_t t = 0; t < 3; ++t) {
        CHECK(steps[t].cross_attention.head[0].weights(0, 4) == 0.0);
        for (std::size_t j = 0; j < 4; ++j) CHECK_THAT(steps[t].output(0, j), WithinAbs(full.output(t, j), 1e-12));
    }
}
