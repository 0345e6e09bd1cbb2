// grade/mistakes.cpp — see mistakes.hpp. The registry at the bottom is the one list;
// each record's compute function is above it, in the same order. Numbers in
// explanations go through trace::compact so they read as a person writes them.
#include "grade/mistakes.hpp"

#include <cmath>

#include "grade/pipeline_extras.hpp"
#include "trace/number_format.hpp"
#include "trace/stage_words.hpp"

namespace attn::grade {

namespace sw = trace::stage_word;

namespace {

std::string num(double x) { return trace::compact(x, 4); }

bool has_blocked(const pipeline_inputs& in) {
    if (!in.mask) return false;
    for (bool b : *in.mask)
        if (!b) return true;
    return false;
}

bool same(const matrix& a, const matrix& b) { return a.shape() == b.shape() && bool(a == b); }

stage_values with_options(const pipeline_inputs& in, const matrix& q, const matrix& k, const matrix& v,
                          const attention_options& o) {
    stage_values s = from_steps(scaled_dot_product_attention(q, k, v, o));
    if (!in.softmax) {
        pipeline_inputs m = in;
        m.mask = o.mask;
        s.weights = weights_from_scores(s.masked, m);
        s.output = matmul(s.weights, v);
    }
    return s;
}

// ── how each mistake is computed ──

void no_scaling(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    if (right.scale == 1.0) return;
    attention_options o = options_of(in);
    o.scale_divisor = 1.0;
    out.push_back({"no_scaling", "softmax(Q Kᵀ) without dividing by √d_k = " + num(right.scale), with_options(in, in.q, in.k, in.v, o)});
}

void scaled_by_d(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    const double d_k = static_cast<double>(in.q.shape(1));
    if (in.scale || d_k == 1.0) return;
    attention_options o = options_of(in);
    o.scale_divisor = d_k;
    out.push_back({"scaled_by_d", "the scores divided by d_k = " + num(d_k) + " instead of √d_k = " + num(std::sqrt(d_k)),
                   with_options(in, in.q, in.k, in.v, o)});
}

void softmax_wrong_axis(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    if (!in.softmax || in.q.shape(0) < 2) return;
    stage_values s = right;
    matrix t = xt::transpose(right.masked);      // [n_k, n_q]
    s.weights = xt::transpose(softmax_rows(t));  // [n_q, n_k]; columns sum to 1
    s.output = matmul(s.weights, in.v);
    out.push_back({"softmax_wrong_axis",
                   "the softmax taken down each column (over the queries) instead of along each row (over the keys); "
                   "each row of the weights must sum to 1",
                   s});
}

void no_softmax(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    if (!in.softmax) return;
    stage_values s = right;
    pipeline_inputs none = in;
    none.softmax = false;
    s.weights = weights_from_scores(right.scaled, none);
    s.output = matmul(s.weights, in.v);
    out.push_back({"no_softmax", "the scaled scores used as the weights", s});
}

void rows_not_summing_to_1(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    if (!in.softmax) return;
    stage_values s = right;  // exp(scores) without dividing by the row's sum
    for (std::size_t i = 0; i < s.weights.shape(0); ++i)
        for (std::size_t j = 0; j < s.weights.shape(1); ++j) s.weights(i, j) = std::exp(right.masked(i, j));
    s.output = matmul(s.weights, in.v);
    out.push_back({"rows_not_normalised",
                   "exp of the scores not divided by their row's sum: each row of the weights must sum to 1 "
                   "(or be all 0 for a query that sees no key)",
                   s});
}

void transposed_scores(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    if (same(in.q, in.k)) return;  // Q = K: Q Kᵀ is symmetric, the mistake changes nothing
    const std::size_t n_q = in.q.shape(0), n_k = in.k.shape(0);
    stage_values s;
    s.raw = matmul(in.k, in.q, /*transpose_b=*/true);  // [n_k, n_q] K Qᵀ
    s.scale = right.scale;
    s.scaled = s.raw / right.scale;
    s.masked = s.scaled;
    if (in.bias && n_q == n_k) s.masked += *in.bias;
    s.weights = weights_from_scores(s.masked, in);
    if (n_q == n_k) s.output = matmul(s.weights, in.v);
    out.push_back({"transposed_scores", "K Qᵀ (rows keys, columns queries) instead of Q Kᵀ; rows must be the queries", s});
}

void weights_transposed(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    const std::size_t n_q = in.q.shape(0), n_k = in.k.shape(0);
    stage_values s = right;
    s.weights = xt::transpose(right.weights);  // [n_k, n_q]
    if (n_q == n_k) s.output = matmul(s.weights, in.v);
    else s.output = matrix();
    if (n_q == n_k && same(s.weights, right.weights)) return;  // symmetric weights: nothing to tell apart
    out.push_back({"weights_transposed", "the weights written (or used) transposed: row i must be query i's weights over the keys", s});
}

void gram_xtx(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    const std::size_t n_q = in.q.shape(0), n_k = in.k.shape(0);
    if (n_q != n_k) return;
    stage_values s;
    s.raw = matmul(xt::transpose(in.q), in.k);  // [d_k, d_k] Qᵀ K, as XᵀX
    s.scale = right.scale;
    s.scaled = s.raw / right.scale;
    s.masked = s.scaled;
    pipeline_inputs plain = in;
    plain.mask.reset();
    s.weights = weights_from_scores(s.masked, plain);
    if (s.weights.shape(1) == in.v.shape(0)) s.output = matmul(s.weights, in.v);
    out.push_back({"gram_xtx", "Xᵀ X (a d × d matrix of dimensions against dimensions) instead of X Xᵀ (tokens against tokens)", s});
}

void queries_from_encoder(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    if (!in.cross) return;
    const std::size_t n_q = in.q.shape(0), n_k = in.k.shape(0);
    const matrix eq = in.encoder_q ? *in.encoder_q : in.k;  // [n_k, d_k]
    attention_options o = options_of(in);
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

void k_v_swapped(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    if (in.q.shape(1) != in.v.shape(1) || same(in.k, in.v)) return;
    out.push_back({"k_v_swapped", "the scores taken against V and the values read from K", with_options(in, in.q, in.v, in.k, options_of(in))});
}

void mask_missing(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    if (!has_blocked(in)) return;
    attention_options o = options_of(in);
    o.mask.reset();
    out.push_back({"mask_missing", "the blocked keys still get weight", with_options(in, in.q, in.k, in.v, o)});
}

void mask_reversed(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    if (!has_blocked(in)) return;
    attention_options o = options_of(in);
    bool_matrix rev = *in.mask;
    for (auto& b : rev) b = !b;
    o.mask = rev;
    out.push_back({"mask_reversed", "weight on the blocked keys and none on the allowed ones", with_options(in, in.q, in.k, in.v, o)});
}

void finite_fill(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    if (!has_blocked(in) || std::isfinite(in.masked_fill)) return;
    for (double fill : {-1e4, -1e5, -1e9, -1e10, -1e30}) {
        stage_values s = right;
        for (std::size_t i = 0; i < s.masked.shape(0); ++i)
            for (std::size_t j = 0; j < s.masked.shape(1); ++j)
                if (!(*in.mask)(i, j)) s.masked(i, j) = fill;
        // The softmax of the filled row as a student's code computes it: a row with
        // every key blocked becomes uniform (all fills equal), not zeros.
        if (in.softmax) {
            s.weights = softmax_rows(s.masked);
            s.output = matmul(s.weights, in.v);
        }
        out.push_back({"finite_fill",
                       "a large finite number (" + num(fill) + ") written where a blocked score is −inf; "
                       "write -inf (TOML: -inf, JSON: \"-inf\" or -Infinity): a query that sees no key then gets weights 0",
                       s});
    }
}

void all_masked_row(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    bool any_full = false;
    for (bool b : right.fully_masked) any_full = any_full || b;
    if (!any_full || !in.softmax) return;
    stage_values s = right;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < in.q.shape(0); ++i)
        if (right.fully_masked[i]) {
            for (std::size_t j = 0; j < in.k.shape(0); ++j) s.weights(i, j) = nan;
            for (std::size_t j = 0; j < in.v.shape(1); ++j) s.output(i, j) = nan;
        }
    out.push_back({"all_masked_row",
                   "a row whose keys are all masked turned into 0/0, not a number (exp(−inf) = 0 everywhere, 0/0); "
                   "a query that may see no key gets weights 0, and its output is 0",
                   s});
}

void bias_missing(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    if (!in.bias) return;
    attention_options o = options_of(in);
    o.bias.reset();
    out.push_back({"bias_missing", "the scores without the added bias (the position term of the run)", with_options(in, in.q, in.k, in.v, o)});
}

void softmax_added(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    if (in.softmax) return;  // the exercise leaves the softmax out (004 Q3); applying it anyway
    pipeline_inputs with = in;
    with.softmax = true;
    out.push_back({"softmax_added", "a softmax applied although this exercise leaves it out", compute_correct(with)});
}

void scaled_anyway(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    const double d_k = static_cast<double>(in.q.shape(1));
    if (!in.scale || std::fabs(*in.scale - std::sqrt(d_k)) <= 1e-12) return;
    attention_options o = options_of(in);
    o.scale_divisor.reset();
    out.push_back({"scaled_anyway", "the scores divided by √d_k = " + num(std::sqrt(d_k)) + " although this exercise divides by " + num(*in.scale),
                   with_options(in, in.q, in.k, in.v, o)});
}

void rounded_early(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
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
}

void weights_rounded(const pipeline_inputs& in, const stage_values& right, mistake_forms& out) {
    for (int d : {1, 2}) {
        stage_values s = right;
        s.weights = round_to(right.weights, d);
        s.output = matmul(s.weights, in.v);
        out.push_back({"weights_rounded",
                       "the weights rounded to " + std::to_string(d) + (d == 1 ? " decimal" : " decimals") +
                           " before multiplying by V (keep 4 or more until the end)",
                       s});
    }
}

// Lessons 20–22: another trained head on the same input (model_exercise.cpp made it).
template <const char* Id>
void read_other_head(const pipeline_inputs& in, const stage_values&, mistake_forms& out) {
    for (const auto& h : in.other_heads)
        if (h.mistake == Id) out.push_back({Id, h.explanation, with_options(in, h.q, h.k, h.v, options_of(in))});
}
constexpr char head_counted_from_0[] = "head_counted_from_0";
constexpr char other_checkpoint[] = "other_checkpoint";

// ── which rows each changes ──

std::vector<bool> rows_with_blocked(const pipeline_inputs& in, const stage_values&) {
    std::vector<bool> r(in.q.shape(0), false);
    if (in.mask)
        for (std::size_t i = 0; i < r.size(); ++i)
            for (std::size_t j = 0; j < in.mask->shape(1); ++j) r[i] = r[i] || !(*in.mask)(i, j);
    return r;
}

// Rows whose weights the scores decide: at least two visible keys (one visible key
// always gets weight 1, none gets 0, whatever numbers are used).
std::vector<bool> rows_with_choice(const pipeline_inputs& in, const stage_values&) {
    std::vector<bool> r(in.q.shape(0), true);
    if (in.mask)
        for (std::size_t i = 0; i < r.size(); ++i) {
            std::size_t visible = 0;
            for (std::size_t j = 0; j < in.mask->shape(1); ++j) visible += (*in.mask)(i, j) ? 1 : 0;
            r[i] = visible >= 2;
        }
    return r;
}

std::vector<bool> fully_masked_rows(const pipeline_inputs&, const stage_values& right) { return right.fully_masked; }

std::vector<bool> rows_with_bias(const pipeline_inputs& in, const stage_values&) {
    std::vector<bool> r(in.q.shape(0), false);
    if (in.bias)
        for (std::size_t i = 0; i < r.size(); ++i)
            for (std::size_t j = 0; j < in.bias->shape(1); ++j) r[i] = r[i] || (*in.bias)(i, j) != 0.0;
    return r;
}

}  // namespace

const std::vector<mistake_record>& mistake_catalogue() {
    static const std::vector<mistake_record> all{
        // id, name, when it applies, first stage changed, how to compute it, rows it changes, redraw rule
        {"no_scaling", "no scaling", "the scores are divided by something other than 1", sw::scaled().c_str(), no_scaling, nullptr, mistake_record::redraw::structural},
        {"scaled_by_d", "scaling by d_k instead of √d_k", "the exercise divides by √d_k and d_k ≠ 1", sw::scaled().c_str(), scaled_by_d, nullptr, mistake_record::redraw::structural},
        {"softmax_wrong_axis", "softmax over the wrong axis", "a softmax over two or more queries", sw::weights().c_str(), softmax_wrong_axis, nullptr, mistake_record::redraw::structural},
        {"no_softmax", "no softmax", "the exercise applies a softmax", sw::weights().c_str(), no_softmax, nullptr, mistake_record::redraw::structural},
        {"rows_not_normalised", "rows not summing to 1", "the exercise applies a softmax", sw::weights().c_str(), rows_not_summing_to_1, nullptr, mistake_record::redraw::structural},
        {"transposed_scores", "transposed scores", "Q ≠ K", sw::raw().c_str(), transposed_scores, rows_with_choice, mistake_record::redraw::coincidence},
        {"weights_transposed", "weights transposed", "the weights are not symmetric", sw::weights().c_str(), weights_transposed, rows_with_choice, mistake_record::redraw::coincidence},
        {"gram_xtx", "XᵀX instead of XXᵀ", "as many queries as keys", sw::raw().c_str(), gram_xtx, rows_with_choice, mistake_record::redraw::coincidence},
        {"queries_from_encoder", "queries taken from the encoder", "cross-attention", sw::raw().c_str(), queries_from_encoder, rows_with_choice, mistake_record::redraw::coincidence},
        {"k_v_swapped", "K and V swapped", "d_k = d_v and K ≠ V", sw::raw().c_str(), k_v_swapped, rows_with_choice, mistake_record::redraw::coincidence},
        {"mask_missing", "mask missing", "a mask blocks some key", sw::masked().c_str(), mask_missing, rows_with_blocked, mistake_record::redraw::structural},
        {"mask_reversed", "mask reversed", "a mask blocks some key", sw::masked().c_str(), mask_reversed, rows_with_blocked, mistake_record::redraw::structural},
        {"finite_fill", "a finite large negative for −inf", "a mask blocks some key and blocked scores are −inf", sw::masked().c_str(), finite_fill,
         rows_with_blocked, mistake_record::redraw::structural},
        {"all_masked_row", "−inf row giving 0/0 (not a number)", "a query sees no key at all", sw::weights().c_str(), all_masked_row, fully_masked_rows,
         mistake_record::redraw::structural},
        {"bias_missing", "position bias left out", "the run adds a bias", sw::masked().c_str(), bias_missing, rows_with_bias, mistake_record::redraw::structural},
        {"softmax_added", "a softmax where there is none", "the exercise leaves the softmax out", sw::weights().c_str(), softmax_added, nullptr, mistake_record::redraw::structural},
        {"scaled_anyway", "scaling where there is none", "the exercise divides by a set number other than √d_k", sw::scaled().c_str(), scaled_anyway,
         nullptr, mistake_record::redraw::structural},
        {"weights_rounded", "weights rounded early", "always (weights rounded to 1 or 2 decimals before · V)", sw::output().c_str(), weights_rounded,
         nullptr, mistake_record::redraw::tolerance},
        {"rounded_early", "rounding too early", "always (scores rounded to 1 or 2 decimals)", sw::weights().c_str(), rounded_early, nullptr, mistake_record::redraw::tolerance},
        // lessons 15–19 (pipeline_extras.cpp); their stages are not raw … output, so the
        // variant generator does not redraw for them
        {"jacobian_sum_missing", "the Σ term of the softmax Jacobian forgotten", "the exercise gives dL/dO (grad)", sw::raw().c_str(),
         jacobian_sum_missing, nullptr, mistake_record::redraw::tolerance},
        {"gradient_not_scaled", "gradient not divided by the scale", "grad, and the scale is not 1", sw::raw().c_str(), gradient_not_scaled,
         nullptr, mistake_record::redraw::tolerance},
        {"gradient_not_transposed", "A instead of Aᵀ in dV", "grad, and as many queries as keys", sw::raw().c_str(),
         gradient_not_transposed, nullptr, mistake_record::redraw::tolerance},
        {"online_not_rescaled", "partial output not rescaled", "the exercise tiles the keys (tile)", sw::raw().c_str(), online_not_rescaled,
         nullptr, mistake_record::redraw::tolerance},
        {"rope_wrong_angle", "rotated by the wrong angle", "rotary positions (rope)", sw::raw().c_str(), rope_wrong_angle, nullptr,
         mistake_record::redraw::tolerance},
        {"window_off_by_one", "window off by one", "a window mask (window)", sw::raw().c_str(), window_off_by_one, nullptr,
         mistake_record::redraw::tolerance},
        // lessons 20–22: a trained head (model_exercise.cpp)
        {"head_counted_from_0", "layer and head counted from 0", "a trained model's head, not in its last layer or head",
         sw::raw().c_str(), read_other_head<head_counted_from_0>, rows_with_choice, mistake_record::redraw::coincidence},
        {"other_checkpoint", "the head at another training step", "a trained model saved at several steps",
         sw::raw().c_str(), read_other_head<other_checkpoint>, rows_with_choice, mistake_record::redraw::coincidence},
    };
    return all;
}

const mistake_record* find_mistake(const std::string& id) {
    for (const auto& m : mistake_catalogue())
        if (id == m.id) return &m;
    return nullptr;
}

// Every record's forms, in the catalogue's order.
std::vector<mistake_candidate> mistake_candidates(const pipeline_inputs& in, const stage_values& right) {
    std::vector<mistake_candidate> out;
    for (const auto& m : mistake_catalogue()) m.compute(in, right, out);
    return out;
}

int stage_rank(const std::string& stage) {
    const std::string* order[] = {&sw::raw(), &sw::scaled(), &sw::masked(), &sw::weights(), &sw::output()};
    for (int i = 0; i < 5; ++i)
        if (stage == *order[i]) return i;
    return -1;
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
