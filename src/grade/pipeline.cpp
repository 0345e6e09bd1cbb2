// grade/pipeline.cpp — see pipeline.hpp.
#include "grade/pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/recipe.hpp"
#include "grade/exercise.hpp"

namespace attn::grade {

namespace sw = stage_word;

attention_options options_of(const pipeline_inputs& in) {
    attention_options o;
    o.mask = in.mask;
    o.bias = in.bias;
    o.masked_fill = in.masked_fill;
    o.scale_divisor = in.scale;
    return o;
}

namespace {

// The recipe's forward options: mask, bias, fill, divisor, softmax or not, rotation (mistakes' too).
recipe_options forward_recipe(const pipeline_inputs& in) {
    recipe_options o;
    if (in.rope_base) o.rope = rope_option{*in.rope_base};
    o.mask = in.mask;
    if (in.bias) o.bias = {*in.bias};
    o.masked_fill = in.masked_fill;
    o.scale_divisor = in.scale;
    o.softmax = in.softmax;
    return o;
}

}  // namespace

tiled_steps tiled(const pipeline_inputs& in, bool skip_rescale) {
    recipe_options o = forward_recipe(in);
    o.tile = *in.tile;
    o.skip_rescale = skip_rescale;
    return *attention_recipe_head(in.q, in.k, in.v, o).tiled;
}

matrix weights_from_scores(const matrix& scores, const pipeline_inputs& in) {
    return weights_of_scores(scores, in.mask, in.softmax);
}

stage_values forward(const pipeline_inputs& in) {
    return stage_values(attention_recipe_head(in.q, in.k, in.v, forward_recipe(in)).forward);
}

stage_values with_gradients(stage_values s, const attention_grads& g) {
    s.extra[stage::grad_v] = g.grad_v;
    s.extra[stage::grad_pattern] = g.grad_weights;
    s.extra[stage::grad_attn_scores] = g.grad_scores;
    s.extra[stage::grad_q] = g.grad_q;
    s.extra[stage::grad_k] = g.grad_k;
    return s;
}

stage_values compute_correct(const pipeline_inputs& in) {
    recipe_options o = forward_recipe(in);
    o.tile = in.tile;
    o.grad_output = in.grad_output;
    recipe_head h = attention_recipe_head(in.q, in.k, in.v, o);
    stage_values s(std::move(h.forward));
    if (h.grads) s = with_gradients(s, *h.grads);
    if (h.tiled) {
        s.extra[stage::tiled_running_max] = h.tiled->running_max;
        s.extra[stage::tiled_running_sum] = h.tiled->running_sum;
    }
    if (h.rope_q) {  // raw … output are on q and k turned by their positions
        s.extra[stage::rot_q] = h.rope_q->rotated;
        s.extra[stage::rot_k] = h.rope_k->rotated;
    }
    return s;
}

const matrix* stage_ref(const stage_values& s, const std::string& stage) {
    const auto id = parse_stage(stage);
    if (!id || sw::is_input(stage)) return nullptr;
    const auto extra = s.extra.find(*id);
    if (extra == s.extra.end() && stage_info_of(*id).needs != stage_needs::nothing) return nullptr;
    const matrix& m = extra != s.extra.end() ? extra->second : stage_matrix(s, *id);
    return m.size() == 0 ? nullptr : &m;
}

bool same_options(const pipeline_inputs& a, const pipeline_inputs& b) {
    return a.mask == b.mask && a.bias == b.bias && a.scale == b.scale && a.rope_base == b.rope_base &&
           a.tile == b.tile && a.grad_output == b.grad_output && a.softmax == b.softmax &&
           (a.masked_fill == b.masked_fill || (std::isnan(a.masked_fill) && std::isnan(b.masked_fill)));
}

struct kept_stages { pipeline_inputs in; stage_values stages; bool set = false; };  // of(in), until a call on other inputs
static const stage_values& kept(kept_stages& last, const pipeline_inputs& in, stage_values (*of)(const pipeline_inputs&)) {
    if (last.set && last.in.q == in.q && last.in.k == in.k && last.in.v == in.v && same_options(last.in, in)) return last.stages;
    last.set = false;  // until the stages are in
    std::tie(last.stages, last.in, last.set) = std::forward_as_tuple(of(in), in, true);
    return last.stages;
}
const stage_values& correct_of(const pipeline_inputs& in) { thread_local kept_stages last; return kept(last, in, compute_correct); }
const stage_values& forward_of(const pipeline_inputs& in) { thread_local kept_stages last; return kept(last, in, forward); }

std::optional<matrix> select_stage(const stage_values& s, const std::string& stage, const std::vector<std::size_t>& rows,
                                   const std::vector<std::size_t>& cols) {
    if (stage == sw::scale()) return matrix({1, 1}, s.scale);
    const matrix* m = stage_ref(s, stage);
    return m ? submatrix(*m, rows, cols) : std::nullopt;
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
    const auto id = std::count(asked.begin(), asked.end(), stage) ? parse_stage(stage) : std::nullopt;
    const matrix_axes axes = matrix_axes_of(id.value_or(stage::scores_raw));
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
