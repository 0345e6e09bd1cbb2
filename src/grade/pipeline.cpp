// grade/pipeline.cpp — see pipeline.hpp.
#include "grade/pipeline.hpp"

#include <algorithm>

#include "core/rope.hpp"
#include "grade/exercise.hpp"
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

tiled_steps tiled(const pipeline_inputs& in, bool skip_rescale) {
    tiled_options o;
    o.tile = *in.tile;
    o.mask = in.mask;
    o.bias = in.bias;
    o.scale_divisor = in.scale;
    o.skip_rescale = skip_rescale;
    return tiled_attention(in.q, in.k, in.v, o);
}

matrix weights_from_scores(const matrix& scores, const pipeline_inputs& in) {
    matrix m = scores;  // [n_q, n_k]
    const bool fits = in.mask && in.mask->shape(0) == m.shape(0) && in.mask->shape(1) == m.shape(1);
    const double blocked = in.softmax ? -std::numeric_limits<double>::infinity() : 0.0;
    if (fits)
        for (std::size_t i = 0; i < m.shape(0); ++i)
            for (std::size_t j = 0; j < m.shape(1); ++j)
                if (!(*in.mask)(i, j)) m(i, j) = blocked;
    return in.softmax ? softmax_rows(m) : m;  // fully blocked rows → zeros
}

stage_values forward(const pipeline_inputs& in) {
    stage_values s(scaled_dot_product_attention(in.q, in.k, in.v, options_of(in)));
    if (!in.softmax) {  // (Q Kᵀ / scale) V, as 004 Q3 asks: the scores are the weights
        s.weights = weights_from_scores(s.scores_masked, in);
        s.output = matmul(s.weights, in.v);  // [n_q, d_v]
    }
    return s;
}

stage_values with_gradients(stage_values s, const attention_grads& g) {
    s.extra[trace::stage::grad_v] = g.grad_v;
    s.extra[trace::stage::grad_pattern] = g.grad_weights;
    s.extra[trace::stage::grad_attn_scores] = g.grad_scores;
    s.extra[trace::stage::grad_q] = g.grad_q;
    s.extra[trace::stage::grad_k] = g.grad_k;
    return s;
}

stage_values compute_correct(const pipeline_inputs& in) {
    stage_values s = forward(in);
    if (in.grad_output)  // the gradients of the unrotated forward
        s = with_gradients(s, attention_backward(s, *in.grad_output));
    if (in.tile) {
        const tiled_steps t = tiled(in, false);
        s.extra[trace::stage::tiled_running_max] = t.running_max;
        s.extra[trace::stage::tiled_running_sum] = t.running_sum;
    }
    if (in.rope_base) {  // raw … output on q and k turned by their positions
        pipeline_inputs rotated = in;
        rotated.q = rotary_embed(in.q, *in.rope_base).rotated;  // [n_q, d_k]
        rotated.k = rotary_embed(in.k, *in.rope_base).rotated;  // [n_k, d_k]
        stage_values r = forward(rotated);
        r.extra = std::move(s.extra);
        r.extra[trace::stage::rot_q] = rotated.q;
        r.extra[trace::stage::rot_k] = rotated.k;
        return r;
    }
    return s;
}

std::optional<matrix> select_stage(const stage_values& s, const std::string& stage, const std::vector<std::size_t>& rows,
                                   const std::vector<std::size_t>& cols) {
    if (stage == sw::scale()) return matrix({1, 1}, s.scale);
    const auto id = trace::parse_stage(stage);
    if (!id || sw::is_input(stage)) return std::nullopt;
    const auto extra = s.extra.find(*id);
    if (extra == s.extra.end() && trace::info(*id).needs != trace::stage_needs::nothing) return std::nullopt;
    const matrix& m = extra != s.extra.end() ? extra->second : trace::stage_matrix(s, *id);
    if (m.size() == 0) return std::nullopt;
    return submatrix(m, rows, cols);
}

const std::vector<std::string>& chain_stages() {
    static const std::vector<std::string> order{sw::raw(), sw::scaled(), sw::masked(), sw::weights(), sw::output()};
    return order;
}

std::size_t visible_keys(const pipeline_inputs& in, std::size_t i) {
    std::size_t n = 0;
    for (std::size_t j = 0; j < in.k.shape(0); ++j) n += !in.mask || (*in.mask)(i, j) ? 1 : 0;
    return n;
}

stage_dims dims_of(const std::string& stage, const pipeline_inputs& in) {
    const auto& asked = numeric_stage_names();
    const auto id = std::count(asked.begin(), asked.end(), stage) ? trace::parse_stage(stage) : std::nullopt;
    const trace::matrix_axes axes = trace::matrix_axes_of(id.value_or(trace::stage::scores_raw));
    const std::size_t blocks = in.tile && *in.tile ? (in.k.shape(0) + *in.tile - 1) / *in.tile : 0;
    const std::map<std::string, std::size_t> size{{"query_pos", in.q.shape(0)}, {"key_pos", in.k.shape(0)},
                                                  {"d_head", in.q.shape(1)},    {"d_head_v", in.v.shape(1)},
                                                  {"block", blocks}};
    return {size.at(axes.rows), size.at(axes.cols), axes.rows == "key_pos", axes.cols == "key_pos"};
}

const std::vector<std::string>& numeric_stage_names() {
    static const std::vector<std::string> names{
        sw::raw(), sw::scaled(), sw::masked(), sw::weights(), sw::output(), sw::scale(), sw::argmax(),
        sw::q(), sw::k(), sw::v(),                                                       // student_inputs
        sw::grad_v(), sw::grad_weights(), sw::grad_scores(), sw::grad_q(), sw::grad_k(),  // lesson 15
        sw::running_max(), sw::running_sum(),                                            // lesson 16
        sw::rot_q(), sw::rot_k()};                                                       // lesson 17
    return names;
}

}  // namespace attn::grade
