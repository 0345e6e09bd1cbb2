// tests/core_blocks_test.cpp — positions, ALiBi, layer norm, FFN and the encoder and
// decoder blocks against an independent NumPy computation
// (tests/data/core_blocks_reference.txt, from tests/python/core_blocks_reference.py), and
// against numbers worked by hand from seed 000.
#include <catch2/catch.hpp>

#include <cmath>

#include <xtensor/xview.hpp>

#include "core/alibi.hpp"
#include "core/blocks.hpp"
#include "core/ffn.hpp"
#include "core/layer_norm.hpp"
#include "core/positional.hpp"
#include "core/shape_error.hpp"
#include "support/core_reference_data.hpp"

using namespace attn;
using attn::testing::check_all_close;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;

namespace {
const attn::testing::reference_data& blocks_ref() {
    static const attn::testing::reference_data d("core_blocks_reference.txt");
    return d;
}
vector vec(const std::string& name) { return blocks_ref().at(name); }
multi_head_weights mh(const std::string& prefix) {
    return {blocks_ref().mat(prefix + ".w_q"), blocks_ref().mat(prefix + ".w_k"), blocks_ref().mat(prefix + ".w_v"),
            blocks_ref().mat(prefix + ".w_o"), 2};
}
ffn_weights ffn_w(activation a = activation::relu) {
    return {blocks_ref().mat("ffn.w1"), vec("ffn.b1"), blocks_ref().mat("ffn.w2"), vec("ffn.b2"), a};
}
layer_norm_params norm(int i) {
    const std::string p = "norm" + std::to_string(i);
    return {vec(p + ".gamma"), vec(p + ".beta"), 1e-5};
}
}  // namespace

TEST_CASE("sinusoidal positions follow sin and cos of pos over 10000 to the 2i over d", "[core]") {
    const matrix p = sinusoidal_positions(6, 8);
    check_all_close(p, blocks_ref().mat("sinusoidal_6x8"), 1e-15, "table");
    // By hand: row 1, column 0 is sin(1); column 1 is cos(1).
    CHECK_THAT(p(1, 0), WithinAbs(std::sin(1.0), 1e-15));
    CHECK_THAT(p(1, 1), WithinAbs(std::cos(1.0), 1e-15));
    // An offset gives the later rows of the same table (decoding step by step).
    check_all_close(sinusoidal_positions(2, 8, 10000.0, 4), matrix(xt::view(p, xt::range(4, 6), xt::all())), 1e-15,
                    "offset rows");
}

TEST_CASE("adding positions gives x plus P and refuses a too-short table", "[core]") {
    const matrix x = {{1, 2}, {3, 4}, {5, 6}};      // [3, 2]
    const matrix p = {{10, 20}, {30, 40}, {50, 60}, {70, 80}};  // [4, 2]
    const auto s = add_positions(x, p);
    CHECK(s.output(2, 1) == 66.0);
    CHECK(s.positions.shape(0) == 3);
    const auto later = add_positions(matrix{{0, 0}}, p, 3);
    CHECK(later.output(0, 0) == 70.0);
    CHECK_THROWS_WITH(add_positions(x, p, 2), Contains("but P has only N = 4 rows"));
    CHECK_THROWS_AS(add_positions(x, matrix(xt::zeros<double>({4, 3}))), shape_error);
}

TEST_CASE("the linear distance bias is seed 000 eq 13", "[core]") {
    // Row i of the bias is [−i, …, −1, 0, −1, …, −(n−1−i)].
    const matrix b = linear_distance_bias(5, 5);
    const double row2[] = {-2, -1, 0, -1, -2};
    for (std::size_t j = 0; j < 5; ++j) CHECK(b(2, j) == row2[j]);
    const double row0[] = {0, -1, -2, -3, -4};
    for (std::size_t j = 0; j < 5; ++j) CHECK(b(0, j) == row0[j]);
    CHECK_FALSE(std::signbit(b(3, 3)));  // 0, not −0
    check_all_close(linear_distance_bias(4, 6, 0.5, 1), blocks_ref().mat("alibi_4x6_slope_half_offset_1"), 0.0,
                    "offset");
}

TEST_CASE("ALiBi slopes are the geometric sequence of Press et al", "[core]") {
    const auto s = alibi_slopes(8);
    REQUIRE(s.size() == 8);
    CHECK(s[0] == 0.5);
    CHECK(s[7] == 1.0 / 256.0);
    const auto opts = alibi_options(3, 3, {1.0, 0.25});
    REQUIRE(opts.size() == 2);
    CHECK((*opts[1].bias)(0, 2) == -0.5);
}

TEST_CASE("the distance bias makes near keys win when scores tie", "[core]") {
    // All scores equal: without the bias every weight is 1/5; with it, nearer is heavier.
    const matrix q = xt::zeros<double>({5, 2}), k = xt::zeros<double>({5, 2});
    attention_options o;
    o.bias = linear_distance_bias(5, 5);
    const auto s = scaled_dot_product_attention(q, k, matrix(xt::eye<double>(5)), o);
    const double z = 1 + 2 * std::exp(-1.0) + 2 * std::exp(-2.0);  // row 2's denominator
    CHECK_THAT(s.weights(2, 2), WithinAbs(1 / z, 1e-12));
    CHECK_THAT(s.weights(2, 0), WithinAbs(std::exp(-2.0) / z, 1e-12));
}

TEST_CASE("layer norm statistics are per token and match hand and NumPy", "[core]") {
    // By hand: row [1, 2, 3, 6]: mean 3, variance (4 + 1 + 0 + 9)/4 = 3.5.
    const auto s = layer_norm(matrix{{1, 2, 3, 6}, {5, 5, 5, 5}}, {std::nullopt, std::nullopt, 0.0});
    CHECK(s.mean(0) == 3.0);
    CHECK(s.variance(0) == 3.5);
    CHECK_THAT(s.normalized(0, 3), WithinAbs(3 / std::sqrt(3.5), 1e-15));
    // A constant token: σ = 0 and ε = 0 give zeros, not NaN.
    CHECK(s.normalized(1, 0) == 0.0);
    const auto r = layer_norm(blocks_ref().mat("ln.h"), {vec("ln.gamma"), vec("ln.beta"), 1e-5});
    check_all_close(r.output, blocks_ref().mat("ln.output"), 1e-12, "NumPy layer norm");
    CHECK_THROWS_AS(layer_norm(matrix{{1, 2}}, {vector{1, 2, 3}, std::nullopt, 1e-5}), shape_error);
}

TEST_CASE("residual add needs equal shapes", "[core]") {
    CHECK(residual_add(matrix{{1, 2}}, matrix{{3, 4}})(0, 1) == 6.0);
    CHECK_THROWS_WITH(residual_add(matrix{{1, 2}}, matrix{{1, 2, 3}}), Contains("residual add needs equal shapes"));
}

TEST_CASE("the FFN keeps pre-activation, activation and output and matches NumPy", "[core]") {
    const matrix x = blocks_ref().mat("enc.x");
    const auto relu = feed_forward(x, ffn_w());
    CHECK(relu.hidden_pre.shape(1) == 16);  // d_ff = 4d
    check_all_close(relu.hidden, blocks_ref().mat("ffn.relu.hidden"), 1e-12, "ReLU hidden");
    check_all_close(relu.output, blocks_ref().mat("ffn.relu.output"), 1e-12, "ReLU output");
    const auto gelu = feed_forward(x, ffn_w(activation::gelu_tanh));
    check_all_close(gelu.hidden, blocks_ref().mat("ffn.gelu.hidden"), 1e-12, "GELU hidden");
    check_all_close(gelu.output, blocks_ref().mat("ffn.gelu.output"), 1e-12, "GELU output");
    // Token-wise: the FFN of one row alone equals that row of the FFN of all rows.
    const auto one = feed_forward(matrix(xt::view(x, xt::range(2, 3), xt::all())), ffn_w());
    for (std::size_t j = 0; j < 4; ++j) CHECK_THAT(one.output(0, j), WithinAbs(relu.output(2, j), 1e-14));
    auto bad = ffn_w();
    bad.w2 = xt::zeros<double>({15, 4});
    CHECK_THROWS_WITH(feed_forward(x, bad), Contains("W_2 has d_ff = 15 rows but W_1 has d_ff = 16"));
}

TEST_CASE("encoder blocks, post-norm and pre-norm, match NumPy", "[core]") {
    const auto [placement, name] =
        GENERATE(table<norm_placement, std::string>({{norm_placement::post, "post"}, {norm_placement::pre, "pre"}}));
    INFO(name);
    const encoder_block_weights w{mh("enc.attn"), ffn_w(), norm(1), norm(2), placement};
    const auto s = encoder_block(blocks_ref().mat("enc.x"), w);
    check_all_close(s.add_norm1.stream, blocks_ref().mat("enc." + name + ".after_attention"), 1e-12, "after attention");
    check_all_close(s.output, blocks_ref().mat("enc." + name + ".output"), 1e-12, "output");
    REQUIRE(s.sublayers.size() == 2);
    CHECK(to_string(s.sublayers[0].shape) == "n × d");
    if (placement == norm_placement::post) {
        // Post-norm: the last LN sees f(h) + h; pre-norm: the first LN sees h itself.
        check_all_close(s.add_norm2.norm.input, s.add_norm2.residual, 0.0, "LN sees f(h) + h");
    } else {
        check_all_close(s.add_norm1.norm.input, s.input, 0.0, "LN sees h");
    }
}

TEST_CASE("decoder blocks of an encoder-decoder match NumPy sub-layer by sub-layer", "[core]") {
    const auto [placement, name] =
        GENERATE(table<norm_placement, std::string>({{norm_placement::post, "post"}, {norm_placement::pre, "pre"}}));
    INFO(name);
    const decoder_block_weights w{mh("dec.self"), mh("dec.cross"), ffn_w(), norm(1), norm(2), norm(3), placement};
    const auto s = decoder_block(blocks_ref().mat("dec.y"), blocks_ref().mat("enc.x"), w);
    check_all_close(s.add_norm1.stream, blocks_ref().mat("dec." + name + ".after_self"), 1e-12, "after self-attention");
    check_all_close(s.add_norm2.stream, blocks_ref().mat("dec." + name + ".after_cross"), 1e-12,
                    "after cross-attention");
    check_all_close(s.output, blocks_ref().mat("dec." + name + ".output"), 1e-12, "output");
    // Shapes of seed 004 Q2: self weights n_tgt × n_tgt, cross weights n_tgt × n_src.
    CHECK(s.self_attention.head[0].weights.shape(1) == 3);
    CHECK(s.cross_attention.head[0].weights.shape(1) == 4);
    CHECK(s.self_attention.head[1].weights(0, 1) == 0.0);  // causal
    REQUIRE(s.sublayers.size() == 3);
    CHECK(s.sublayers[1].name == "cross-attention");
    CHECK(to_string(s.sublayers[1].shape) == "n_tgt × d");
    CHECK(s.sublayers[2].output.shape(0) == 3);
}

TEST_CASE("per-head ALiBi options give each head its own slope in multi-head attention", "[core]") {
    const matrix x = blocks_ref().mat("enc.x");  // [4, 4]
    const auto w = mh("enc.attn");         // H = 2
    const auto opts = alibi_options(4, 4, {0.5, 2.0});
    const auto s = multi_head_attention(x, x, w, opts);
    for (std::size_t h = 0; h < 2; ++h) {
        // Head h by hand: its columns of Q, K, V and its own bias.
        attention_options o;
        o.bias = linear_distance_bias(4, 4, h == 0 ? 0.5 : 2.0);
        const auto one = scaled_dot_product_attention(matmul(x, head_columns(w.w_q, h, 2)),
                                                      matmul(x, head_columns(w.w_k, h, 2)),
                                                      matmul(x, head_columns(w.w_v, h, 2)), o);
        check_all_close(s.head[h].weights, one.weights, 1e-12, "head weights");
    }
    CHECK_THROWS_AS(multi_head_attention(x, x, w, alibi_options(4, 4, {1.0, 1.0, 1.0})), shape_error);
}
