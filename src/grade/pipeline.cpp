// grade/pipeline.cpp — see pipeline.hpp.
#include "grade/pipeline.hpp"

#include <cmath>

#include "grade/pipeline_extras.hpp"
#include "trace/stage_words.hpp"

namespace attn::grade {

namespace sw = trace::stage_word;

attention_options options_of(const pipeline_inputs& in) {
    attention_options o;
    o.mask = in.mask;
    o.bias = in.bias;
    o.masked_fill = in.masked_fill;
    o.scale_divisor = in.scale;
    return o;
}

stage_values from_steps(const attention_steps& s) {
    stage_values out;
    out.raw = s.scores_raw;
    out.scaled = s.scores_scaled;
    out.masked = s.scores_masked;
    out.weights = s.weights;
    out.output = s.output;
    out.scale = s.scale;
    out.fully_masked = s.row_fully_masked;
    return out;
}

matrix weights_from_scores(const matrix& scores, const pipeline_inputs& in) {
    matrix m = scores;  // [n_q, n_k]
    const bool fits = in.mask && in.mask->shape(0) == m.shape(0) && in.mask->shape(1) == m.shape(1);
    if (!in.softmax) {
        if (fits)
            for (std::size_t i = 0; i < m.shape(0); ++i)
                for (std::size_t j = 0; j < m.shape(1); ++j)
                    if (!(*in.mask)(i, j)) m(i, j) = 0.0;
        return m;
    }
    if (fits)
        for (std::size_t i = 0; i < m.shape(0); ++i)
            for (std::size_t j = 0; j < m.shape(1); ++j)
                if (!(*in.mask)(i, j)) m(i, j) = -std::numeric_limits<double>::infinity();
    return softmax_rows(m);  // fully blocked rows → zeros
}

stage_values compute_correct(const pipeline_inputs& in) {
    stage_values s = from_steps(scaled_dot_product_attention(in.q, in.k, in.v, options_of(in)));
    if (!in.softmax) {  // (Q Kᵀ / scale) V, as 004 Q3 asks: the scores are the weights
        s.weights = weights_from_scores(s.masked, in);
        s.output = matmul(s.weights, in.v);  // [n_q, d_v]
    }
    add_extra_stages(in, s);  // gradients, online softmax, rotary positions
    return s;
}

std::optional<matrix> select_stage(const stage_values& s, const std::string& stage, const std::vector<std::size_t>& rows,
                                   const std::vector<std::size_t>& cols) {
    const matrix* m = nullptr;
    matrix scalar;
    if (stage == sw::raw()) m = &s.raw;
    else if (stage == sw::scaled()) m = &s.scaled;
    else if (stage == sw::masked()) m = &s.masked;
    else if (stage == sw::weights()) m = &s.weights;
    else if (stage == sw::output()) m = &s.output;
    else if (stage == sw::scale()) {
        scalar = matrix({1, 1});
        scalar(0, 0) = s.scale;
        m = &scalar;
    } else if (auto it = s.extra.find(stage); it != s.extra.end()) {
        m = &it->second;
    }
    if (!m || m->size() == 0) return std::nullopt;
    std::vector<std::size_t> r = rows, c = cols;
    if (r.empty())
        for (std::size_t i = 0; i < m->shape(0); ++i) r.push_back(i);
    if (c.empty())
        for (std::size_t j = 0; j < m->shape(1); ++j) c.push_back(j);
    if (stage == sw::scale()) r = {0}, c = {0};
    matrix out({r.size(), c.size()});  // [len(rows), len(cols)]
    for (std::size_t a = 0; a < r.size(); ++a)
        for (std::size_t b = 0; b < c.size(); ++b) {
            if (r[a] >= m->shape(0) || c[b] >= m->shape(1)) return std::nullopt;
            out(a, b) = (*m)(r[a], c[b]);
        }
    return out;
}

matrix round_to(const matrix& x, int decimals, bool half_even) {
    const double f = std::pow(10.0, decimals);
    matrix r = x;
    for (auto& e : r) {
        if (!std::isfinite(e)) continue;
        const double y = e * f;
        double n = std::round(y);
        if (half_even && std::fabs(y - std::trunc(y)) == 0.5) n = 2.0 * std::round(y / 2.0);
        e = n / f;
    }
    return r;
}

}  // namespace attn::grade
