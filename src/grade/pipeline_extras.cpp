// grade/pipeline_extras.cpp — see pipeline_extras.hpp. Each mistake is the core's
// computation with the one thing a confused student would do differently.
#include "grade/pipeline_extras.hpp"

#include <cmath>

#include <xtensor/xmanipulation.hpp>

#include "core/backward.hpp"
#include "core/rope.hpp"
#include "core/tiled.hpp"
#include "core/window.hpp"
#include "grade/mistakes.hpp"
#include "trace/number_format.hpp"
#include "trace/stage_words.hpp"

namespace attn::grade {

namespace sw = trace::stage_word;

namespace {

// q or k turned with the frequency of pair i = base^(−step·i/d), from position `first`.
matrix rotate(const matrix& x, double base, double step, double first) {
    const std::size_t d = x.shape(1);
    matrix r = x;  // [n, d]
    for (std::size_t p = 0; p < x.shape(0); ++p)
        for (std::size_t i = 0; i + 1 < d; i += 2) {
            const double theta =
                (first + static_cast<double>(p)) * std::pow(base, -step * static_cast<double>(i / 2) / static_cast<double>(d));
            const double a = x(p, i), b = x(p, i + 1);
            r(p, i) = a * std::cos(theta) - b * std::sin(theta);
            r(p, i + 1) = a * std::sin(theta) + b * std::cos(theta);
        }
    return r;
}

void add_gradients(const attention_grads& g, stage_values& s) {
    s.extra[sw::grad_v()] = g.grad_v;
    s.extra[sw::grad_weights()] = g.grad_weights;
    s.extra[sw::grad_scores()] = g.grad_scores;
    s.extra[sw::grad_q()] = g.grad_q;
    s.extra[sw::grad_k()] = g.grad_k;
}

// The forward of these inputs with q and k replaced (rope), every stage.
stage_values forward(const pipeline_inputs& in, const matrix& q, const matrix& k) {
    return from_steps(scaled_dot_product_attention(q, k, in.v, options_of(in)));
}

// The online softmax of these inputs, tile by tile; skip_rescale is lesson 16's slip.
tiled_steps tiled(const pipeline_inputs& in, bool skip_rescale) {
    tiled_options o;
    o.tile = *in.tile;
    o.mask = in.mask;
    o.bias = in.bias;
    o.scale_divisor = in.scale;
    o.skip_rescale = skip_rescale;
    return tiled_attention(in.q, in.k, in.v, o);
}

std::string num(double x) { return trace::compact(x, 4); }

}  // namespace

const std::vector<std::string>& extra_stage_names() {
    static const std::vector<std::string> names{sw::grad_v(),      sw::grad_weights(), sw::grad_scores(), sw::grad_q(), sw::grad_k(),
                                                sw::running_max(), sw::running_sum(),  sw::rot_q(),       sw::rot_k()};
    return names;
}

std::optional<extra_stage_frame> extra_stage_shape(const std::string& st, const matrix& q, const matrix& k, const matrix& v,
                                                   std::optional<std::size_t> tile) {
    const std::size_t n_q = q.shape(0), n_k = k.shape(0), d_k = q.shape(1), d_v = v.shape(1);
    const std::size_t blocks = tile && *tile ? (n_k + *tile - 1) / *tile : 0;
    if (st == sw::grad_v()) return extra_stage_frame{n_k, d_v, true, false, "dV = Aᵀ dO"};
    if (st == sw::grad_weights()) return extra_stage_frame{n_q, n_k, false, true, "dA = dO Vᵀ"};
    if (st == sw::grad_scores()) return extra_stage_frame{n_q, n_k, false, true, "dS, the gradient of the scaled scores"};
    if (st == sw::grad_q()) return extra_stage_frame{n_q, d_k, false, false, "dQ"};
    if (st == sw::grad_k()) return extra_stage_frame{n_k, d_k, true, false, "dK"};
    if (st == sw::running_max()) return extra_stage_frame{n_q, blocks, false, false, "running max after each key block"};
    if (st == sw::running_sum()) return extra_stage_frame{n_q, blocks, false, false, "running sum after each key block"};
    if (st == sw::rot_q()) return extra_stage_frame{n_q, d_k, false, false, "q turned by its rotary angles"};
    if (st == sw::rot_k()) return extra_stage_frame{n_k, d_k, true, false, "k turned by its rotary angles"};
    return std::nullopt;
}

void add_extra_stages(const pipeline_inputs& in, stage_values& s) {
    if (in.rope_base) {
        const matrix rq = rotary_embed(in.q, *in.rope_base).rotated;  // [n_q, d_k]
        const matrix rk = rotary_embed(in.k, *in.rope_base).rotated;  // [n_k, d_k]
        s = forward(in, rq, rk);
        s.extra[sw::rot_q()] = rq;
        s.extra[sw::rot_k()] = rk;
    }
    if (in.grad_output) {
        add_gradients(attention_backward(scaled_dot_product_attention(in.q, in.k, in.v, options_of(in)), *in.grad_output), s);
    }
    if (in.tile) {
        const tiled_steps t = tiled(in, false);
        s.extra[sw::running_max()] = t.running_max;
        s.extra[sw::running_sum()] = t.running_sum;
    }
}

// ── the mistakes of lessons 15–19, each the core's computation with the one thing a
// confused student would do differently (records in mistakes.cpp's catalogue) ──

namespace {

// Lesson 15's backward pass: the three classic slips, each on top of the right
// gradients of the forward these inputs run.
struct backward_slip {
    attention_steps forward;
    attention_grads grads;
};
backward_slip right_backward(const pipeline_inputs& in) {
    const attention_steps f = scaled_dot_product_attention(in.q, in.k, in.v, options_of(in));
    return {f, attention_backward(f, *in.grad_output)};
}
stage_values with_gradients(stage_values s, const attention_grads& g) {
    add_gradients(g, s);
    return s;
}

}  // namespace

void jacobian_sum_missing(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    if (!in.grad_output) return;
    const auto [f, g_right] = right_backward(in);
    attention_grads g = g_right;  // dS = A ⊙ dA (and dQ, dK from it)
    g.grad_scores = f.weights * g_right.grad_weights;
    g.grad_q = matmul(g.grad_scores, in.k) / f.scale;
    g.grad_k = matmul(matrix(xt::transpose(g.grad_scores)), in.q) / f.scale;
    out.push_back({"jacobian_sum_missing",
                   "dS = A ⊙ dA: the softmax Jacobian's Σ_k A_ik dA_ik term is missing (each row of dS must sum to 0)",
                   with_gradients(right, g)});
}

void gradient_not_scaled(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    if (!in.grad_output) return;
    const auto [f, g_right] = right_backward(in);
    if (f.scale == 1.0) return;
    attention_grads g = g_right;  // dQ, dK without ÷ scale
    g.grad_q = matmul(g_right.grad_scores, in.k);
    g.grad_k = matmul(matrix(xt::transpose(g_right.grad_scores)), in.q);
    out.push_back({"gradient_not_scaled",
                   "dS K without dividing by the forward's scale " + num(f.scale) +
                       ": the ÷√d_k of the forward scales the gradients too",
                   with_gradients(right, g)});
}

// dV = A dO instead of Aᵀ dO (only a different shape-compatible answer when n_q = n_k).
void gradient_not_transposed(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    if (!in.grad_output) return;
    const auto [f, g_right] = right_backward(in);
    if (f.n_q() != f.n_k()) return;
    attention_grads g = g_right;
    g.grad_v = matmul(f.weights, *in.grad_output);
    out.push_back({"gradient_not_transposed",
                   "dV = A dO instead of Aᵀ dO: each value row collects from the queries that weighted it, a column of A",
                   with_gradients(right, g)});
}

void online_not_rescaled(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    if (!in.tile) return;
    const tiled_steps t = tiled(in, true);
    stage_values s = right;
    s.output = t.output;
    s.extra[sw::running_max()] = t.running_max;
    s.extra[sw::running_sum()] = t.running_sum;
    out.push_back({"online_not_rescaled", "the partial output o not multiplied by exp(m_old − m_new) when the running max grows", s});
}

void rope_wrong_angle(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    if (!in.rope_base) return;
    for (auto [step, first, why] : {std::tuple{1.0, 0.0, "pair i turned with base^(−i/d) instead of base^(−2i/d)"},
                                    std::tuple{2.0, 1.0, "positions counted from 1 instead of 0"}}) {
        const matrix rq = rotate(in.q, *in.rope_base, step, first);  // [n_q, d_k]
        const matrix rk = rotate(in.k, *in.rope_base, step, first);  // [n_k, d_k]
        stage_values s = forward(in, rq, rk);
        s.extra[sw::rot_q()] = rq;
        s.extra[sw::rot_k()] = rk;
        out.push_back({"rope_wrong_angle", std::string("rotated by the wrong angle: ") + why, s});
    }
}

void window_off_by_one(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    if (!in.window) return;
    const std::size_t n_q = in.q.shape(0), n_k = in.k.shape(0);
    for (int delta : {-1, 1}) {
        if (delta < 0 && *in.window == 0) continue;
        const std::size_t w = *in.window + static_cast<std::size_t>(delta > 0) - static_cast<std::size_t>(delta < 0);
        pipeline_inputs off = in;
        off.mask = window_mask(n_q, n_k, w, in.window_causal);
        out.push_back({"window_off_by_one",
                       "a window of " + std::to_string(w) + " instead of " + std::to_string(*in.window) +
                           ": query i sees the keys j with |i − j| ≤ w, both ends included",
                       compute_correct(off)});
    }
}

}  // namespace attn::grade
