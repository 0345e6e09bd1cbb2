// grade/mistakes.cpp — see mistakes.hpp. The registry below is the one list: each
// record computes its mistake right where it is listed, the core's computation with the
// one thing a confused student would do differently. Numbers in explanations go through
// trace::compact so they read as a person writes them.
#include "grade/mistakes.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "core/backward.hpp"
#include "core/rope.hpp"
#include "core/tolerance.hpp"
#include "core/window.hpp"
#include "lessons/counting.hpp"
#include "trace/number_format.hpp"
#include "core/stages.hpp"

namespace attn::grade {

namespace sw = stage_word;
using stage = stage;
using rule = mistake_record::redraw;

namespace {

std::string num(double x) { return trace::compact(x, 4); }

std::string decimals(int d) { return std::to_string(d) + (d == 1 ? " decimal" : " decimals"); }

bool same(const matrix& a, const matrix& b) { return a.shape() == b.shape() && bool(a == b); }

bool has_blocked(const pipeline_inputs& in) { return in.mask && !xt::all(*in.mask); }  // mask: [n_q, n_k]

// The right stages with other weights, and the output they give.
stage_values with_weights(const stage_values& right, const matrix& weights, const matrix& v) {
    stage_values s = right;
    s.weights = weights;
    s.output = matmul(weights, v);
    return s;
}

// The inputs with one option changed, as the mistake's student in effect computes.
template <typename Change>
pipeline_inputs changed(const pipeline_inputs& in, Change change) {
    pipeline_inputs m = in;
    change(m);
    return m;
}

// ── which rows each changes ──

std::vector<bool> rows_with_blocked(const pipeline_inputs& in, const stage_values&) {
    std::vector<bool> r(in.q.shape(0));
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = visible_keys(in, i) < in.k.shape(0);
    return r;
}

// Rows whose weights the scores decide: at least two visible keys (one visible key
// always gets weight 1, none gets 0, whatever numbers are used).
std::vector<bool> rows_with_choice(const pipeline_inputs& in, const stage_values&) {
    std::vector<bool> r(in.q.shape(0));
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = !in.mask || visible_keys(in, i) >= 2;
    return r;
}

std::vector<bool> fully_masked_rows(const pipeline_inputs&, const stage_values& right) { return right.row_fully_masked; }

std::vector<bool> rows_with_bias(const pipeline_inputs& in, const stage_values&) {
    std::vector<bool> r(in.q.shape(0), false);
    if (in.bias)
        for (std::size_t i = 0; i < r.size(); ++i)
            for (std::size_t j = 0; j < in.bias->shape(1); ++j) r[i] = r[i] || (*in.bias)(i, j) != 0.0;
    return r;
}

// ── lesson 15's backward pass: each slip on top of the right gradients ──

std::pair<attention_steps, attention_grads> right_backward(const pipeline_inputs& in) {
    const attention_steps f = scaled_dot_product_attention(in.q, in.k, in.v, options_of(in));
    return {f, attention_backward(f, *in.grad_output)};
}

// Lessons 20–23: another trained head on the same input (lessons/model_head_inputs.cpp).
template <const char* Id>
void read_other_head(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    for (const auto& h : in.other_heads) {
        if (h.mistake != Id) continue;
        pipeline_inputs m = in;
        std::tie(m.q, m.k, m.v) = std::tie(h.q, h.k, h.v);
        if (h.unrotated) m.rope_base.reset();  // lesson 23: q and k never turned
        out.push_back({h.explanation, forward(m)});
    }
}
constexpr char head_counted_from_0[] = "head_counted_from_0", other_checkpoint[] = "other_checkpoint";
constexpr char kv_head_wrong_group[] = "kv_head_wrong_group", rotation_skipped[] = "rotation_skipped";
constexpr char wrong_layer[] = "wrong_layer", wrong_head[] = "wrong_head", scaled_by_d_model[] = "scaled_by_d_model";

// ── the registry: id, name, when it applies, first stage changed, redraw rule, rows it
// changes, and how to compute it ──

const std::vector<mistake_record> catalogue{
    {"no_scaling", "no scaling", "the scores are divided by something other than 1", sw::scaled().c_str(),
     rule::structural, nullptr, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (right.scale == 1.0) return;
         out.push_back({"softmax(Q Kᵀ) without dividing by √d_k = " + num(right.scale),
                        forward(changed(in, [](auto& m) { m.scale = 1.0; }))});
     }},
    {"scaled_by_d", "scaling by d_k instead of √d_k", "the exercise divides by √d_k and d_k ≠ 1", sw::scaled().c_str(),
     rule::structural, nullptr, [](const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
         const double d_k = static_cast<double>(in.q.shape(1));
         if (in.scale || d_k == 1.0) return;
         out.push_back({"the scores divided by d_k = " + num(d_k) + " instead of √d_k = " + num(std::sqrt(d_k)),
                        forward(changed(in, [&](auto& m) { m.scale = d_k; }))});
     }},
    {"softmax_wrong_axis", "softmax over the wrong axis", "a softmax over two or more queries", sw::weights().c_str(),
     rule::structural, nullptr, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (!in.softmax || in.q.shape(0) < 2) return;
         const matrix t = xt::transpose(right.scores_masked);  // [n_k, n_q]
         const matrix down = xt::transpose(softmax_rows(t));  // [n_q, n_k]; columns sum to 1
         out.push_back({"the softmax taken down each column (over the queries) instead of along each row (over the "
                        "keys); each row of the weights must sum to 1", with_weights(right, down, in.v)});
     }},
    {"no_softmax", "no softmax", "the exercise applies a softmax", sw::weights().c_str(),
     rule::structural, nullptr, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (!in.softmax) return;
         const auto no_softmax = changed(in, [](auto& m) { m.softmax = false; });
         out.push_back({"the scaled scores used as the weights",
                        with_weights(right, weights_from_scores(right.scores_scaled, no_softmax), in.v)});
     }},
    {"rows_not_normalised", "rows not summing to 1", "the exercise applies a softmax", sw::weights().c_str(),
     rule::structural, nullptr, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (!in.softmax) return;
         const matrix unnormalised = xt::exp(right.scores_masked);  // without dividing by the row's sum
         out.push_back({"exp of the scores not divided by their row's sum: each row of the weights must sum to 1 "
                        "(or be all 0 for a query that sees no key)", with_weights(right, unnormalised, in.v)});
     }},
    {"transposed_scores", "transposed scores", "Q ≠ K", sw::raw().c_str(),
     rule::coincidence, rows_with_choice, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (same(in.q, in.k)) return;  // Q = K: Q Kᵀ is symmetric, the mistake changes nothing
         const bool square = in.q.shape(0) == in.k.shape(0);
         stage_values s;
         s.scores_raw = matmul(in.k, in.q, /*transpose_b=*/true);  // [n_k, n_q] K Qᵀ
         s.scale = right.scale;
         s.scores_scaled = s.scores_raw / right.scale;
         s.scores_masked = s.scores_scaled;
         if (in.bias && square) s.scores_masked += *in.bias;
         s.weights = weights_from_scores(s.scores_masked, in);
         if (square) s.output = matmul(s.weights, in.v);
         out.push_back({"K Qᵀ (rows keys, columns queries) instead of Q Kᵀ; rows must be the queries", s});
     }},
    {"weights_transposed", "weights transposed", "the weights are not symmetric", sw::weights().c_str(),
     rule::coincidence, rows_with_choice, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         const bool square = in.q.shape(0) == in.k.shape(0);
         stage_values s = right;
         s.weights = xt::transpose(right.weights);  // [n_k, n_q]
         s.output = square ? matrix(matmul(s.weights, in.v)) : matrix();
         if (square && same(s.weights, right.weights)) return;  // symmetric weights: nothing to tell apart
         out.push_back({"the weights written (or used) transposed: row i must be query i's weights over the keys", s});
     }},
    {"gram_xtx", "XᵀX instead of XXᵀ", "as many queries as keys", sw::raw().c_str(),
     rule::coincidence, rows_with_choice, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (in.q.shape(0) != in.k.shape(0)) return;
         stage_values s;
         s.scores_raw = matmul(xt::transpose(in.q), in.k);  // [d_k, d_k] Qᵀ K, as XᵀX
         s.scale = right.scale;
         s.scores_scaled = s.scores_raw / right.scale;
         s.scores_masked = s.scores_scaled;
         s.weights = weights_from_scores(s.scores_masked, changed(in, [](auto& m) { m.mask.reset(); }));
         if (s.weights.shape(1) == in.v.shape(0)) s.output = matmul(s.weights, in.v);
         out.push_back({"Xᵀ X (a d × d matrix of dimensions against dimensions) instead of X Xᵀ (tokens against tokens)",
                        s});
     }},
    {"queries_from_encoder", "queries taken from the encoder", "cross-attention", sw::raw().c_str(),
     rule::coincidence, rows_with_choice, [](const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
         if (!in.cross) return;
         const std::size_t n_q = in.q.shape(0), n_k = in.k.shape(0);
         pipeline_inputs m = in;
         m.q = in.encoder_q ? *in.encoder_q : in.k;  // [n_k, d_k]
         m.bias.reset();
         m.mask.reset();
         bool same_rows = true;  // a padding mask (same row for every query) carries over to the encoder's queries
         for (std::size_t i = 1; in.mask && i < n_q; ++i)
             for (std::size_t j = 0; j < n_k; ++j) same_rows = same_rows && (*in.mask)(i, j) == (*in.mask)(0, j);
         if (in.mask && same_rows) m.mask = bool_matrix(xt::broadcast(xt::view(*in.mask, 0, xt::all()), {n_k, n_k}));
         out.push_back({std::string(in.encoder_q ? "the encoder's own Q" : "the encoder states K") +
                            " used as the queries; cross-attention takes Q from the decoder (target), K and V from "
                            "the encoder (source)",
                        forward(m)});
     }},
    {"k_v_swapped", "K and V swapped", "d_k = d_v and K ≠ V", sw::raw().c_str(),
     rule::coincidence, rows_with_choice, [](const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
         if (in.q.shape(1) != in.v.shape(1) || same(in.k, in.v)) return;
         out.push_back({"the scores taken against V and the values read from K",
                        forward(changed(in, [&](auto& m) { std::swap(m.k, m.v); }))});
     }},
    {"mask_missing", "mask missing", "a mask blocks some key", sw::masked().c_str(),
     rule::structural, rows_with_blocked, [](const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
         if (!has_blocked(in)) return;
         out.push_back({"the blocked keys still get weight", forward(changed(in, [](auto& m) { m.mask.reset(); }))});
     }},
    {"mask_reversed", "mask reversed", "a mask blocks some key", sw::masked().c_str(),
     rule::structural, rows_with_blocked, [](const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
         if (!has_blocked(in)) return;
         out.push_back({"weight on the blocked keys and none on the allowed ones",
                        forward(changed(in, [](auto& m) { m.mask = bool_matrix(!*m.mask); }))});
     }},
    {"mask_after_softmax", "mask applied after the softmax", "a mask blocks some key", sw::weights().c_str(),
     rule::tolerance, rows_with_blocked, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (!has_blocked(in) || !in.softmax) return;
         const matrix all = forward(changed(in, [](auto& m) { m.mask.reset(); })).weights;  // [n_q, n_k] over every key
         out.push_back({"the softmax over every key, then the blocked keys' weights set to 0: mask the scores (−inf) "
                        "before the softmax", with_weights(right, matrix(xt::where(*in.mask, all, 0.0)), in.v)});
     }},
    {"finite_fill", "a finite large negative for −inf", "a mask blocks some key and blocked scores are −inf",
     sw::masked().c_str(), rule::structural, rows_with_blocked,
     [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (!has_blocked(in) || std::isfinite(in.masked_fill)) return;
         for (double fill : {-1e4, -1e5, -1e9, -1e10, -1e30}) {
             stage_values s = right;
             s.scores_masked = xt::where(*in.mask, right.scores_masked, fill);
             // The softmax of the filled row as a student's code computes it: a row with
             // every key blocked becomes uniform (all fills equal), not zeros.
             if (in.softmax) s = with_weights(s, softmax_rows(s.scores_masked), in.v);
             out.push_back({"a large finite number (" + num(fill) + ") written where a blocked score is −inf; write "
                            "-inf (TOML: -inf, JSON: \"-inf\" or -Infinity): a query that sees no key then gets weights 0",
                            s});
         }
     }},
    {"all_masked_row", "−inf row giving 0/0 (not a number)", "a query sees no key at all", sw::weights().c_str(),
     rule::structural, fully_masked_rows, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (!right.any_row_fully_masked() || !in.softmax) return;
         stage_values s = right;
         const double nan = std::numeric_limits<double>::quiet_NaN();
         for (std::size_t i = 0; i < in.q.shape(0); ++i)
             if (right.row_fully_masked[i]) {
                 xt::row(s.weights, i) = nan;
                 xt::row(s.output, i) = nan;
             }
         out.push_back({"a row whose keys are all masked turned into 0/0, not a number (exp(−inf) = 0 everywhere, "
                        "0/0); a query that may see no key gets weights 0, and its output is 0", s});
     }},
    {"bias_missing", "position bias left out", "the run adds a bias", sw::masked().c_str(),
     rule::structural, rows_with_bias, [](const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
         if (!in.bias) return;
         out.push_back({"the scores without the added bias (the position term of the run)",
                        forward(changed(in, [](auto& m) { m.bias.reset(); }))});
     }},
    {"softmax_added", "a softmax where there is none", "the exercise leaves the softmax out", sw::weights().c_str(),
     rule::structural, nullptr, [](const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
         if (in.softmax) return;  // the exercise leaves the softmax out (004 Q3); applying it anyway
         out.push_back({"a softmax applied although this exercise leaves it out",
                        compute_correct(changed(in, [](auto& m) { m.softmax = true; }))});
     }},
    {"scaled_anyway", "scaling where there is none", "the exercise divides by a set number other than √d_k",
     sw::scaled().c_str(), rule::structural, nullptr,
     [](const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
         const double d_k = static_cast<double>(in.q.shape(1));
         if (!in.scale || std::fabs(*in.scale - std::sqrt(d_k)) <= 1e-12) return;
         out.push_back({"the scores divided by √d_k = " + num(std::sqrt(d_k)) + " although this exercise divides by " +
                            num(*in.scale),
                        forward(changed(in, [](auto& m) { m.scale.reset(); }))});
     }},
    {"weights_rounded", "weights rounded early", "always (weights rounded to 1 or 2 decimals before · V)",
     sw::output().c_str(), rule::tolerance, nullptr,
     [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         for (int d : {1, 2})
             out.push_back({"the weights rounded to " + decimals(d) + " before multiplying by V (keep 4 or more until "
                            "the end)", with_weights(right, round_to(right.weights, d), in.v)});
     }},
    {"rounded_early", "rounding too early", "always (scores rounded to 1 or 2 decimals)", sw::weights().c_str(),
     rule::tolerance, nullptr, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         for (int d : {1, 2})
             for (bool half_even : {false, true}) {  // by hand (half up) or numpy.round (half to even)
                 stage_values s = right;
                 s.scores_scaled = round_to(right.scores_raw, d, half_even) / right.scale;
                 s.scores_masked = round_to(s.scores_scaled, d, half_even);
                 if (in.bias) s.scores_masked += *in.bias;
                 s.weights = weights_from_scores(s.scores_masked, in);
                 s.output = matmul(round_to(s.weights, d, half_even), in.v);
                 out.push_back({"intermediate values rounded to " + decimals(d) + " before the next step (keep 4 or "
                                "more until the end)", s});
             }
     }},
    // Lessons 15–19: their stages are not raw … output, so the variant generator does
    // not redraw for them.
    {"jacobian_sum_missing", "the Σ term of the softmax Jacobian forgotten", "the exercise gives dL/dO (grad)",
     sw::raw().c_str(), rule::tolerance, nullptr,
     [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (!in.grad_output) return;
         const auto [f, g_right] = right_backward(in);
         attention_grads g = g_right;  // dS = A ⊙ dA (and dQ, dK from it)
         g.grad_scores = f.weights * g_right.grad_weights;
         g.grad_q = matmul(g.grad_scores, in.k) / f.scale;
         g.grad_k = matmul(matrix(xt::transpose(g.grad_scores)), in.q) / f.scale;
         out.push_back({"dS = A ⊙ dA: the softmax Jacobian's Σ_k A_ik dA_ik term is missing (each row of dS must "
                        "sum to 0)", with_gradients(right, g)});
     }},
    {"gradient_not_scaled", "gradient not divided by the scale", "grad, and the scale is not 1", sw::raw().c_str(),
     rule::tolerance, nullptr, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (!in.grad_output) return;
         const auto [f, g_right] = right_backward(in);
         if (f.scale == 1.0) return;
         attention_grads g = g_right;  // dQ, dK without ÷ scale
         g.grad_q = matmul(g_right.grad_scores, in.k);
         g.grad_k = matmul(matrix(xt::transpose(g_right.grad_scores)), in.q);
         out.push_back({"dS K without dividing by the forward's scale " + num(f.scale) +
                            ": the ÷√d_k of the forward scales the gradients too", with_gradients(right, g)});
     }},
    // dV = A dO instead of Aᵀ dO (only a different shape-compatible answer when n_q = n_k).
    {"gradient_not_transposed", "A instead of Aᵀ in dV", "grad, and as many queries as keys", sw::raw().c_str(),
     rule::tolerance, nullptr, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (!in.grad_output || in.q.shape(0) != in.k.shape(0)) return;
         auto [f, g] = right_backward(in);
         g.grad_v = matmul(f.weights, *in.grad_output);
         out.push_back({"dV = A dO instead of Aᵀ dO: each value row collects from the queries that weighted it, a "
                        "column of A", with_gradients(right, g)});
     }},
    {"online_not_rescaled", "partial output not rescaled", "the exercise tiles the keys (tile)", sw::raw().c_str(),
     rule::tolerance, nullptr, [](const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
         if (!in.tile) return;
         const tiled_steps t = tiled(in, true);
         stage_values s = right;
         s.output = t.output;
         s.extra[stage::tiled_running_max] = t.running_max;
         s.extra[stage::tiled_running_sum] = t.running_sum;
         out.push_back({"the partial output o not multiplied by exp(m_old − m_new) when the running max grows", s});
     }},
    // Pair i turned with base^(−i/d) is the right rotation with base √base.
    {"rope_wrong_angle", "rotated by the wrong angle", "rotary positions (rope)", sw::raw().c_str(),
     rule::tolerance, nullptr, [](const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
         if (!in.rope_base) return;
         for (auto [base, first, why] : {std::tuple{std::sqrt(*in.rope_base), 0.0, "pair i turned with base^(−i/d) "
                                                                                   "instead of base^(−2i/d)"},
                                         std::tuple{*in.rope_base, 1.0, "positions counted from 1 instead of 0"}}) {
             pipeline_inputs m = in;
             m.rope_base.reset();
             m.q = rotary_embed(in.q, base, first).rotated;  // [n_q, d_k]
             m.k = rotary_embed(in.k, base, first).rotated;  // [n_k, d_k]
             stage_values s = forward(m);
             s.extra[stage::rot_q] = m.q;
             s.extra[stage::rot_k] = m.k;
             out.push_back({std::string("rotated by the wrong angle: ") + why, s});
         }
     }},
    {"window_off_by_one", "window off by one", "a window mask (window)", sw::raw().c_str(),
     rule::tolerance, nullptr, [](const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
         if (!in.window) return;
         for (int delta : {-1, 1}) {
             if (delta < 0 && *in.window == 0) continue;
             const std::size_t w = delta < 0 ? *in.window - 1 : *in.window + 1;
             out.push_back({"a window of " + std::to_string(w) + " instead of " + std::to_string(*in.window) +
                                ": query i sees the keys j with |i − j| ≤ w, both ends included",
                            compute_correct(changed(in, [&](auto& m) {
                                m.mask = window_mask(in.q.shape(0), in.k.shape(0), w, in.window_causal);
                            }))});
         }
     }},
    // Lessons 20–22: a trained head (lessons/model_head_inputs.cpp).
    {"head_counted_from_0", "layer and head counted from 0", "a trained model's head, not in its last layer or head",
     sw::raw().c_str(), rule::coincidence, rows_with_choice, read_other_head<head_counted_from_0>},
    {"other_checkpoint", "the head at another training step", "a trained model saved at several steps",
     sw::raw().c_str(), rule::coincidence, rows_with_choice, read_other_head<other_checkpoint>},
    {"kv_head_wrong_group", "key/value head of another group", "a trained model with grouped-query attention",
     sw::raw().c_str(), rule::coincidence, rows_with_choice, read_other_head<kv_head_wrong_group>},
    {"rotation_skipped", "rotation skipped", "a trained model's rotary head", sw::raw().c_str(), rule::coincidence,
     rows_with_choice, read_other_head<rotation_skipped>},
    {"wrong_layer", "the head of another layer", "a trained model with two or more layers", sw::raw().c_str(),
     rule::tolerance, rows_with_choice, read_other_head<wrong_layer>},
    {"wrong_head", "another head of the layer", "a trained model with two or more heads a layer", sw::raw().c_str(),
     rule::tolerance, rows_with_choice, read_other_head<wrong_head>},
    {"scaled_by_d_model", "scaling by √d_model instead of √d_head", "a trained model with two or more heads a layer",
     sw::scaled().c_str(), rule::tolerance, nullptr, read_other_head<scaled_by_d_model>},
};

}  // namespace

const std::vector<mistake_record>& mistake_catalogue() { return catalogue; }

// The other heads (lessons::model_head_numbers); q ÷ √heads under the head's ÷√d_head gives ÷√d_model (raw: off).
void add_model_mistake_heads(const mistake_record& r, const lessons::model_source& m, pipeline_inputs& in) {
    if (r.compute != read_other_head<wrong_layer>) return;
    const std::size_t layers = lessons::model_layers(m.model), heads = lessons::model_heads(m.model);
    for (std::size_t l = 0; l < layers; ++l)
        for (std::size_t h = 0; h < heads; ++h) {
            if ((l == m.layer) == (h == m.head)) continue;  // the head itself, or another layer and head
            lessons::model_source o = m;
            std::tie(o.layer, o.head) = std::tie(l, h);
            const lessons::head_numbers n = lessons::model_head_numbers(o, in.model_tokens, false);
            in.other_heads.push_back({l == m.layer ? wrong_head : wrong_layer, lessons::head_label(l, h, false) + " read instead of " +
                                      lessons::head_label(m.layer, m.head, false), n.q, n.k, n.v, false});
        }
    const std::size_t d_head = in.q.shape(1);
    in.other_heads.push_back({scaled_by_d_model, "the scores divided by √d_model = √" + std::to_string(heads * d_head) +
                              " instead of √d_head = √" + std::to_string(d_head) + ": d_head = d_model / heads",
                              in.q / std::sqrt(static_cast<double>(heads)), in.k, in.v, false});
}

const mistake_record* find_mistake(const std::string& id) {
    for (const auto& m : catalogue)
        if (id == m.id) return &m;
    return nullptr;
}

// Every record's forms, in the catalogue's order.
mistake_forms mistake_candidates(const pipeline_inputs& in, const stage_values& right) {
    mistake_forms out;
    for (const auto& m : catalogue) {
        const std::size_t first = out.size();
        m.compute(in, right, out);
        for (std::size_t i = first; i < out.size(); ++i) out[i].record = &m;
    }
    return out;
}

int stage_rank(const std::string& stage) {
    const auto& order = chain_stages();
    const auto at = std::find(order.begin(), order.end(), stage);
    return at == order.end() ? -1 : static_cast<int>(at - order.begin());
}

bool rows_not_normalised(const matrix& weights, double tol) {
    for (std::size_t i = 0; i < weights.shape(0); ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < weights.shape(1); ++j) sum += weights(i, j);
        if (!std::isfinite(sum)) return true;
        if (std::fabs(sum - 1.0) > tol && std::fabs(sum) > tol) return true;
    }
    return false;
}

}  // namespace attn::grade
