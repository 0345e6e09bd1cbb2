// tests/lessons_model_test.cpp — lessons 02 and 07–13 against independent
// computations: what each lesson claims (√d growth, per-head slices, identical α
// for "so", the collapse of stacked layers, per-token statistics, causal zeros,
// caches that change nothing) recomputed here from the lesson's inputs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include <xtensor/xview.hpp>

#include "core/attention.hpp"
#include "core/prng.hpp"
#include "core/shapes.hpp"
#include "lessons/lesson_loader.hpp"
#include "lessons/lesson_parts.hpp"
#include "trace/shape_table.hpp"
#include "support/lesson_files.hpp"

using namespace attn;
using attn::testing::lesson_no;

namespace {

double max_abs_diff(const matrix& a, const matrix& b) {
    REQUIRE(a.shape() == b.shape());
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a.data()[i] - b.data()[i]));
    return m;
}

}  // namespace

TEST_CASE("random dot products spread like the square root of d", "[lessons]") {
    prng g(2);
    for (std::size_t d : {4u, 64u, 512u}) {
        double sum2 = 0;
        const int n = 2000;
        for (int s = 0; s < n; ++s) {
            double dot = 0;
            for (std::size_t i = 0; i < d; ++i) dot += g.normal() * g.normal();
            sum2 += dot * dot;
        }
        const double ratio = std::sqrt(sum2 / n) / std::sqrt(static_cast<double>(d));
        INFO("d = " << d << ", spread / sqrt(d) = " << ratio);
        CHECK(ratio > 0.9);
        CHECK(ratio < 1.1);
    }
}

TEST_CASE("lesson 02 draws its vectors from the PRNG and saturates without scaling", "[lessons]") {
    const auto l = lesson_no(2);
    prng g(512);
    const matrix& q = l.matrices.at("Q512");
    REQUIRE(q.shape(0) == 5);
    REQUIRE(q.shape(1) == 512);
    for (std::size_t i = 0; i < q.size(); ++i) CHECK(q.data()[i] == g.normal());
    const auto& un = l.runs.at("unscaled").steps;
    const auto& sc = l.runs.at("scaled").steps;
    CHECK(sc.scale == Approx(std::sqrt(512.0)));
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK(xt::amax(xt::row(un.weights, i))() > 0.99);
        CHECK(xt::amax(xt::row(sc.weights, i))() < 0.8);
    }
}

TEST_CASE("lesson 07's heads are attention on column slices, and W_O mixes them", "[lessons]") {
    const auto l = lesson_no(7);
    const matrix& x = l.matrices.at("X");
    for (std::size_t h = 0; h < 2; ++h) {
        const matrix slice = xt::view(x, xt::all(), xt::range(2 * h, 2 * h + 2));  // identity projections
        const auto ref = scaled_dot_product_attention(slice, slice, slice);
        const auto& head = l.runs.at("mha.h" + std::to_string(h + 1)).steps;
        CHECK(max_abs_diff(head.weights, ref.weights) < 1e-12);
        CHECK(head.scale == Approx(std::sqrt(2.0)));
    }
    const matrix out = matmul(l.matrices.at("mha.concat"), l.matrices.at("W_O"));
    CHECK(max_abs_diff(out, l.matrices.at("mha.output")) < 1e-12);
}

TEST_CASE("lesson 08: word order is invisible without positions and visible with them", "[lessons]") {
    const auto l = lesson_no(8);
    auto sorted_so = [&](const std::string& run) {
        const auto& s = l.runs.at(run).steps;
        std::vector<double> w(s.weights.shape(1));
        for (std::size_t j = 0; j < w.size(); ++j) w[j] = s.weights(5, j);
        std::sort(w.begin(), w.end());
        return w;
    };
    const auto a = sorted_so("oven"), b = sorted_so("bread");
    for (std::size_t j = 0; j < a.size(); ++j) CHECK(a[j] == Approx(b[j]).margin(1e-15));
    const auto& ho = l.runs.at("oven").steps.output;
    const auto& hb = l.runs.at("bread").steps.output;
    for (std::size_t c = 0; c < 4; ++c) CHECK(ho(5, c) == Approx(hb(5, c)).margin(1e-15));
    const auto& po = l.runs.at("oven_p").steps.output;
    const auto& pb = l.runs.at("bread_p").steps.output;
    double diff = 0;
    for (std::size_t c = 0; c < 4; ++c) diff = std::max(diff, std::fabs(po(5, c) - pb(5, c)));
    CHECK(diff > 1e-3);
    // Eq. 13's bias: −|i − j|.
    const matrix& bias = l.matrices.at("distance");
    CHECK(bias(5, 0) == -5.0);
    CHECK(bias(2, 2) == 0.0);
}

TEST_CASE("lesson 09: (XXᵀ)X is cubic and two stacked layers collapse into one", "[lessons]") {
    const auto l = lesson_no(9);
    CHECK(max_abs_diff(l.matrices.at("H_of_2X"), matrix(8.0 * l.matrices.at("H"))) == 0.0);
    const matrix& a_star = l.matrices.at("stack.combined_weights");
    for (std::size_t i = 0; i < 3; ++i) CHECK(xt::sum(xt::row(a_star, i))() == Approx(1.0).margin(1e-12));
    const matrix a2a1 = matmul(l.runs.at("stack.layer2").steps.weights, l.runs.at("stack.layer1").steps.weights);
    CHECK(max_abs_diff(a_star, a2a1) < 1e-15);
    CHECK(max_abs_diff(l.matrices.at("stack.output"), l.matrices.at("stack.collapsed_output")) < 1e-12);
    // The FFN: ReLU zeroes exactly the negative hidden entries.
    const matrix& pre = l.matrices.at("ffn.hidden_pre");
    const matrix& hid = l.matrices.at("ffn.hidden");
    for (std::size_t i = 0; i < pre.size(); ++i) CHECK(hid.data()[i] == std::max(0.0, pre.data()[i]));
}

TEST_CASE("lesson 10's layer norm gives each token mean 0 and variance 1", "[lessons]") {
    const auto l = lesson_no(10);
    const matrix& ln = l.matrices.at("X_ln");
    const matrix& x = l.matrices.at("X");
    for (std::size_t i = 0; i < ln.shape(0); ++i) {
        double mean = 0, var = 0, xm = 0;
        for (std::size_t j = 0; j < 4; ++j) xm += x(i, j) / 4.0;
        for (std::size_t j = 0; j < 4; ++j) mean += ln(i, j) / 4.0;
        for (std::size_t j = 0; j < 4; ++j) var += (ln(i, j) - mean) * (ln(i, j) - mean) / 4.0;
        CHECK(mean == Approx(0.0).margin(1e-12));
        CHECK(var == Approx(1.0).margin(1e-12));
        CHECK(l.matrices.at("X_ln.stats")(i, 0) == Approx(xm).margin(1e-15));
    }
    // Post-norm: the stream after each Add & Norm is LN(residual).
    const matrix& res = l.matrices.at("post.add_norm1.residual");
    const matrix& stream = l.matrices.at("post.add_norm1.stream");
    for (std::size_t i = 0; i < res.shape(0); ++i) {
        double m = 0, v = 0;
        for (std::size_t j = 0; j < 4; ++j) m += res(i, j) / 4.0;
        for (std::size_t j = 0; j < 4; ++j) v += (res(i, j) - m) * (res(i, j) - m) / 4.0;
        for (std::size_t j = 0; j < 4; ++j) CHECK(stream(i, j) == Approx((res(i, j) - m) / std::sqrt(v)).margin(1e-12));
    }
    CHECK(l.matrices.at("post.ffn.hidden").shape(1) == 16);  // d_ff = 4·d
}

TEST_CASE("lesson 11's decoder block masks itself and reads all of the source", "[lessons]") {
    const auto l = lesson_no(11);
    for (const char* h : {"dec.self.h1", "dec.self.h2"}) {
        const auto& w = l.runs.at(h).steps.weights;
        REQUIRE(w.shape(0) == 3);
        REQUIRE(w.shape(1) == 3);
        CHECK(w(0, 1) == 0.0);
        CHECK(w(0, 2) == 0.0);
        CHECK(w(1, 2) == 0.0);
    }
    const auto& c = l.runs.at("dec.cross.h1").steps.weights;
    CHECK(c.shape(0) == 3);
    CHECK(c.shape(1) == 5);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 5; ++j) CHECK(c(i, j) > 0.0);
    const auto& subs = l.parts->blocks.at("dec").decoder->sublayers;
    REQUIRE(subs.size() == 3);
    for (const auto& s : subs) CHECK(to_string(s.shape) == "n_tgt × d");
}

TEST_CASE("lesson 13's cached decoding equals the block run all at once", "[lessons]") {
    const auto l = lesson_no(13);
    CHECK(max_abs_diff(l.matrices.at("gen.outputs"), l.matrices.at("dec.output")) < 1e-12);
    const auto& steps = l.parts->blocks.at("gen").decoding;
    REQUIRE(steps.size() == 3);
    for (std::size_t t = 0; t < 3; ++t) {
        CHECK(steps[t].counts.self_cache_rows == t + 1);
        CHECK(steps[t].cross_attention.n_k() == 5);
        CHECK(steps[t].counts.flops_cross_attention == steps[0].counts.flops_cross_attention);
    }
    // Self-attention grows by the same amount per step: one more cached row.
    CHECK(steps[2].counts.flops_self_attention - steps[1].counts.flops_self_attention ==
          steps[1].counts.flops_self_attention - steps[0].counts.flops_self_attention);
    CHECK(l.matrices.at("gen.self_k_cache").shape(0) == 3);
}

TEST_CASE("lesson 12's shape table agrees with a real cross-attention", "[lessons]") {
    const auto l = lesson_no(12);
    const auto& s = l.runs.at("tiny").steps;
    const symbol_values v = {{"B", 1}, {"n_tgt", 3}, {"n_src", 5}, {"d", 4}, {"d_q", 2}, {"d_v", 2}};
    for (const auto& r : trace::shape_rows("cross")) {
        const auto n = evaluate(r.shape, v);
        if (r.tensor == "Q = X_tgt W^(q)") CHECK(n == std::vector<std::int64_t>{1, 3, 2});
        if (r.tensor == "A = softmax(Q Kᵀ/√d_q)")
            CHECK(n == std::vector<std::int64_t>{1, static_cast<std::int64_t>(s.n_q()), static_cast<std::int64_t>(s.n_k())});
        if (r.tensor == "Z = A V")
            CHECK(n == std::vector<std::int64_t>{1, static_cast<std::int64_t>(s.output.shape(0)),
                                                 static_cast<std::int64_t>(s.output.shape(1))});
    }
    CHECK_THROWS_AS(trace::render_shape_table("cross", {{"B", 2}}, trace::style{}), shape_eval_error);
    CHECK_THROWS_AS(trace::shape_rows("nope"), attn::error);
}
