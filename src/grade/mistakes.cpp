// grade/mistakes.cpp — see mistakes.hpp. Numbers in explanations go through
// trace::compact so they read as a person writes them (2.0, 0.5, never nan).
#include "grade/mistakes.hpp"

#include <cmath>

#include "grade/pipeline_extras.hpp"
#include "trace/number_format.hpp"

namespace attn::grade {

const std::vector<mistake_info>& numeric_mistakes() {
    static const std::vector<mistake_info> all{
        {"no_scaling", "no scaling"},
        {"scaled_by_d", "scaling by d_k instead of √d_k"},
        {"softmax_wrong_axis", "softmax over the wrong axis"},
        {"no_softmax", "no softmax"},
        {"transposed_scores", "transposed scores"},
        {"queries_from_encoder", "queries taken from the encoder"},
        {"k_v_swapped", "K and V swapped"},
        {"mask_missing", "mask missing"},
        {"mask_reversed", "mask reversed"},
        {"all_masked_row", "−inf row giving 0/0 (not a number)"},
        {"bias_missing", "position bias left out"},
        {"softmax_added", "a softmax where there is none"},
        {"scaled_anyway", "scaling where there is none"},
        {"rounded_early", "rounding too early"},
        {"jacobian_sum_missing", "the Σ term of the softmax Jacobian forgotten"},
        {"gradient_not_scaled", "gradient not divided by the scale"},
        {"gradient_not_transposed", "A instead of Aᵀ in dV"},
        {"online_not_rescaled", "partial output not rescaled"},
        {"rope_wrong_angle", "rotated by the wrong angle"},
        {"window_off_by_one", "window off by one"},
    };
    return all;
}

const mistake_info* find_mistake(const std::string& id) {
    for (const auto& m : numeric_mistakes())
        if (id == m.id) return &m;
    return nullptr;
}

namespace {

std::string num(double x) { return trace::compact(x, 4); }

bool has_blocked(const pipeline_inputs& in) {
    if (!in.mask) return false;
    for (bool b : *in.mask)
        if (!b) return true;
    return false;
}

stage_values with_options(const pipeline_inputs& in, const matrix& q, const matrix& k, const matrix& v,
                          const attention_options& o) {
    pipeline_inputs changed = in;
    changed.q = q;
    changed.k = k;
    changed.v = v;
    stage_values s = from_steps(scaled_dot_product_attention(q, k, v, o));
    if (!in.softmax) {
        pipeline_inputs m = changed;
        m.mask = o.mask;
        s.weights = weights_from_scores(s.masked, m);
        s.output = matmul(s.weights, v);
    }
    return s;
}

}  // namespace

std::vector<mistake_candidate> mistake_candidates(const pipeline_inputs& in) {
    std::vector<mistake_candidate> out;
    const stage_values right = compute_correct(in);
    const double d_k = static_cast<double>(in.q.shape(1));
    const attention_options base = options_of(in);
    const std::size_t n_q = in.q.shape(0), n_k = in.k.shape(0);

    if (right.scale != 1.0) {
        attention_options o = base;
        o.scale_divisor = 1.0;
        out.push_back({"no_scaling",
                       "softmax(Q Kᵀ) without dividing by √d_k = " + num(right.scale),
                       with_options(in, in.q, in.k, in.v, o)});
    }
    if (!in.scale && d_k != 1.0) {
        attention_options o = base;
        o.scale_divisor = d_k;
        out.push_back({"scaled_by_d", "the scores divided by d_k = " + num(d_k) + " instead of √d_k = " + num(std::sqrt(d_k)),
                       with_options(in, in.q, in.k, in.v, o)});
    }
    if (in.softmax && n_q > 1) {
        stage_values s = right;
        matrix t = xt::transpose(right.masked);  // [n_k, n_q]
        s.weights = xt::transpose(softmax_rows(t));  // [n_q, n_k]; columns sum to 1
        s.output = matmul(s.weights, in.v);
        out.push_back({"softmax_wrong_axis",
                       "the softmax taken down each column (over the queries) instead of along each row (over the keys); "
                       "each row of the weights must sum to 1",
                       s});
    }
    if (in.softmax) {
        stage_values s = right;
        pipeline_inputs none = in;
        none.softmax = false;
        s.weights = weights_from_scores(right.scaled, none);
        s.output = matmul(s.weights, in.v);
        out.push_back({"no_softmax", "the scaled scores used as the weights", s});
    }
    {
        stage_values s;
        s.raw = matmul(in.k, in.q, /*transpose_b=*/true);  // [n_k, n_q] K Qᵀ
        s.scale = right.scale;
        s.scaled = s.raw / right.scale;
        s.masked = s.scaled;
        pipeline_inputs t = in;
        if (in.bias && n_q == n_k) s.masked += *in.bias;
        s.weights = weights_from_scores(s.masked, t);
        if (n_q == n_k) s.output = matmul(s.weights, in.v);
        out.push_back({"transposed_scores",
                       "K Qᵀ (rows keys, columns queries) instead of Q Kᵀ; rows must be the queries",
                       s});
    }
    if (in.cross) {
        const matrix eq = in.encoder_q ? *in.encoder_q : in.k;  // [n_k, d_k]
        attention_options o = base;
        o.bias.reset();
        o.mask.reset();
        if (in.mask) {  // a padding mask (same row for every query) carries over to the encoder's queries
            bool same_rows = true;
            for (std::size_t i = 1; i < n_q && same_rows; ++i)
                for (std::size_t j = 0; j < n_k; ++j) same_rows = same_rows && (*in.mask)(i, j) == (*in.mask)(0, j);
            if (same_rows) {
                bool_matrix m({n_k, n_k});
                for (std::size_t i = 0; i < n_k; ++i)
                    for (std::size_t j = 0; j < n_k; ++j) m(i, j) = (*in.mask)(0, j);
                o.mask = m;
            }
        }
        out.push_back({"queries_from_encoder",
                       std::string(in.encoder_q ? "the encoder's own Q" : "the encoder states K") +
                           " used as the queries; cross-attention takes Q from the decoder (target), K and V from the encoder (source)",
                       with_options(in, eq, in.k, in.v, o)});
    }
    if (in.q.shape(1) == in.v.shape(1)) {
        out.push_back({"k_v_swapped", "the scores taken against V and the values read from K",
                       with_options(in, in.q, in.v, in.k, base)});
    }
    if (has_blocked(in)) {
        attention_options o = base;
        o.mask.reset();
        out.push_back({"mask_missing", "the blocked keys still get weight",
                       with_options(in, in.q, in.k, in.v, o)});
        bool_matrix rev = *in.mask;
        for (auto& b : rev) b = !b;
        o.mask = rev;
        out.push_back({"mask_reversed", "weight on the blocked keys and none on the allowed ones",
                       with_options(in, in.q, in.k, in.v, o)});
    }
    if (in.bias) {
        attention_options o = base;
        o.bias.reset();
        out.push_back({"bias_missing", "the scores without the added bias (the position term of the run)",
                       with_options(in, in.q, in.k, in.v, o)});
    }
    if (!in.softmax) {  // the exercise leaves the softmax out (004 Q3); applying it anyway
        pipeline_inputs with = in;
        with.softmax = true;
        out.push_back({"softmax_added", "a softmax applied although this exercise leaves it out",
                       compute_correct(with)});
    }
    if (in.scale && std::fabs(*in.scale - std::sqrt(d_k)) > 1e-12) {  // a set divisor (1 = none), √d_k used anyway
        attention_options o = base;
        o.scale_divisor.reset();
        out.push_back({"scaled_anyway", "the scores divided by √d_k = " + num(std::sqrt(d_k)) + " although this exercise divides by " + num(*in.scale),
                       with_options(in, in.q, in.k, in.v, o)});
    }
    bool any_full = false;
    for (bool b : right.fully_masked) any_full = any_full || b;
    if (any_full && in.softmax) {
        stage_values s = right;
        const double nan = std::numeric_limits<double>::quiet_NaN();
        for (std::size_t i = 0; i < n_q; ++i)
            if (right.fully_masked[i]) {
                for (std::size_t j = 0; j < n_k; ++j) s.weights(i, j) = nan;
                for (std::size_t j = 0; j < in.v.shape(1); ++j) s.output(i, j) = nan;
            }
        out.push_back({"all_masked_row",
                       "a row whose keys are all masked turned into 0/0, not a number (exp(−inf) = 0 everywhere, 0/0); "
                       "a query that may see no key gets weights 0, and its output is 0",
                       s});
    }
    for (int d : {1, 2})
        for (bool half_even : {false, true}) {  // by hand (half up) or numpy.round (half to even)
            stage_values s = right;
            const matrix raw_r = round_to(right.raw, d, half_even);
            s.scaled = raw_r / right.scale;
            s.masked = round_to(s.scaled, d, half_even);
            if (in.bias) s.masked += *in.bias;
            s.weights = weights_from_scores(s.masked, in);
            s.output = matmul(round_to(s.weights, d, half_even), in.v);
            out.push_back({"rounded_early",
                           "intermediate values rounded to " + std::to_string(d) + (d == 1 ? " decimal" : " decimals") +
                               " before the next step (keep 4 or more until the end)",
                           s});
        }
    extra_mistake_candidates(in, out);  // lessons 15–19 (pipeline_extras.hpp)
    return out;
}

}  // namespace attn::grade
