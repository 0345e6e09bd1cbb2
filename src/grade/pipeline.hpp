// grade/pipeline.hpp — the stages of one attention computation as the grader needs
// them: computed correctly through attn::scaled_dot_product_attention, or with one of
// the catalogued mistakes (mistakes.hpp), and cut to the rows/columns a part asks.
// Lessons 15–19 add stages computed through the core: gradients (exercise key `grad` =
// dL/dO), the online softmax (`tile`) and rotary positions (`rope`):
//
//   stage          shape          needs   what
//   grad_v         [n_k, d_v]     grad    Aᵀ dO
//   grad_weights   [n_q, n_k]     grad    dA = dO Vᵀ
//   grad_scores    [n_q, n_k]     grad    dS = A ⊙ (dA − Σ_k A dA)
//   grad_q         [n_q, d_k]     grad    dS K ÷ scale
//   grad_k         [n_k, d_k]     grad    dSᵀ Q ÷ scale
//   running_max    [n_q, blocks]  tile    the online softmax's m after each key block
//   running_sum    [n_q, blocks]  tile    l after each key block
//   rot_q, rot_k   [n, d_k]       rope    q and k turned by position · base^(−2i/d)
// With rope, raw … output are computed from rot_q and rot_k.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/attention.hpp"
#include "core/backward.hpp"
#include "core/tiled.hpp"
#include "lessons/exercise_numbers.hpp"
#include "trace/stages.hpp"

namespace attn::grade {

// Inputs of one computation: the lesson's numbers or a student's variant of them.
using pipeline_inputs = lessons::exercise_inputs;

// Every stage: the core's forward, and lessons 15–19's stages by the tracer's id. A
// stage a mistake cannot produce is left empty (size 0).
struct stage_values : attention_steps {
    stage_values() = default;
    explicit stage_values(attention_steps forward) : attention_steps(std::move(forward)) {}
    std::map<trace::stage, matrix> extra;
};

attention_options options_of(const pipeline_inputs& in);
// The forward alone (the weights are the scores when the exercise has no softmax).
stage_values forward(const pipeline_inputs& in);
// The forward and every stage of lessons 15–19 these inputs ask for.
stage_values compute_correct(const pipeline_inputs& in);
// The gradient stages of g into s.
void add_gradients(stage_values& s, const attention_grads& g);
// The online softmax of these inputs; skip_rescale is lesson 16's slip.
tiled_steps tiled(const pipeline_inputs& in, bool skip_rescale);

// m's rows × cols (empty: all); nullopt when an index is outside m.
std::optional<matrix> slice(const matrix& m, const std::vector<std::size_t>& rows, const std::vector<std::size_t>& cols);
// The part's slice of a stage (slice above); "scale" is a 1×1 matrix, an input (q, k,
// v) is no stage here. nullopt when the stage is empty or an index is outside it (a
// mistake of another shape).
std::optional<matrix> select_stage(const stage_values& s, const std::string& stage, const std::vector<std::size_t>& rows,
                                   const std::vector<std::size_t>& cols);

// Weights from given scores the way the exercise computes them: mask (same shape
// only), softmax along rows or not at all. A row with every key blocked gives zeros.
matrix weights_from_scores(const matrix& scores, const pipeline_inputs& in);

// How many keys query row i sees (every key without a mask).
std::size_t visible_keys(const pipeline_inputs& in, std::size_t i);

// raw, scaled, masked, weights, output: the stages of one computation, in order.
const std::vector<std::string>& chain_stages();

// The key query row i attends to most: the first whose weight is within `slack` of the row's largest.
std::size_t most_attended(const matrix& weights, std::size_t i, double slack = 0.0);

// Lessons 15–19's stages the grader asks for (numeric_stage_names()), and their rows and
// columns (whether those are keys) with the title `exercise show` gives them; nullopt
// for other stages.
const std::vector<std::string>& extra_stage_names();
struct extra_stage_frame {
    std::size_t rows = 0, cols = 0;
    bool key_rows = false, key_cols = false;
    std::string title;
};
std::optional<extra_stage_frame> extra_stage_shape(const std::string& stage, const matrix& q, const matrix& k,
                                                   const matrix& v, std::optional<std::size_t> tile);

}  // namespace attn::grade
