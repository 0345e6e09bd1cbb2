// grade/pipeline.hpp — the stages of one attention computation as the grader needs
// them: computed correctly through attention's recipe (core/recipe.hpp), or with one of
// the catalogued mistakes (mistakes.hpp), and cut to the rows/columns a part asks.
// Lessons 15–19 add the recipe's options, each stage kept by its core stage id
// (core/stages.cpp gives their axes and what they are): q and k turned by their
// positions (`rope`; raw … output, the tiles and the gradients are then computed from
// the turned ones), the gradients (exercise key `grad` = dL/dO), and the online
// softmax's running max and sum after each key block (`tile`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/attention.hpp"
#include "core/backward.hpp"
#include "core/submatrix.hpp"
#include "core/tiled.hpp"
#include "lessons/exercise_numbers.hpp"
#include "core/stages.hpp"

namespace attn::grade {

// Inputs of one computation: the lesson's numbers or a student's variant of them.
using pipeline_inputs = lessons::exercise_inputs;

// Every stage: the core's forward, and lessons 15–19's stages by the tracer's id. A
// stage a mistake cannot produce is left empty (size 0).
struct stage_values : attention_steps {
    stage_values() = default;
    explicit stage_values(attention_steps forward) : attention_steps(std::move(forward)) {}
    std::map<stage, matrix> extra;
};

attention_options options_of(const pipeline_inputs& in);
// The forward alone (the weights are the scores when the exercise has no softmax).
stage_values forward(const pipeline_inputs& in);
// The forward and every stage of lessons 15–19 these inputs ask for.
stage_values compute_correct(const pipeline_inputs& in);
// Whether compute_correct reads the same options in a and b (all but q, k, v, encoder_q).
bool same_options(const pipeline_inputs& a, const pipeline_inputs& b);
// compute_correct(in), kept per thread until a call on other inputs (the variant check's, read by the copy index).
const stage_values& correct_of(const pipeline_inputs& in);
const stage_values& forward_of(const pipeline_inputs& in);  // forward(in) alike (a model exercise's lesson numbers)
// s with the gradient stages of g.
stage_values with_gradients(stage_values s, const attention_grads& g);
// The online softmax of these inputs; skip_rescale is lesson 16's slip.
tiled_steps tiled(const pipeline_inputs& in, bool skip_rescale);

// The part's slice of a stage (core/submatrix); "scale" is a 1×1 matrix, an input (q, k,
// v) is no stage here. nullopt when the stage is empty or an index is outside it (a
// mistake of another shape). stage_ref: the whole stage, not copied (nullptr: none; not scale).
const matrix* stage_ref(const stage_values& s, const std::string& stage);
std::optional<matrix> select_stage(const stage_values& s, const std::string& stage, const std::vector<std::size_t>& rows,
                                   const std::vector<std::size_t>& cols);

// Weights from given scores the way the exercise computes them: mask (same shape
// only), softmax along rows or not at all. A row with every key blocked gives zeros.
matrix weights_from_scores(const matrix& scores, const pipeline_inputs& in);

// How many keys query row i sees (every key without a mask).
std::size_t visible_keys(const pipeline_inputs& in, std::size_t i);

// raw, scaled, masked, weights, output: the stages of one computation, in order.
const std::vector<std::string>& chain_stages();

// A stage a numeric part may ask on these numbers: its rows and columns, whole, and
// whether they are keys, read off the tracer's axes (matrix_axes). scale and
// argmax are read off the scores, whose rows and columns a part's `rows` and `cols`
// pick; any other name is taken as the scores too. cols = 0: running_max and
// running_sum without a tile.
struct stage_dims {
    std::size_t rows = 0, cols = 0;
    bool key_rows = false, key_cols = false;
};
stage_dims dims_of(const std::string& stage, const pipeline_inputs& in);

// Every stage a numeric part may name (lessons/README.md, "Exercises").
const std::vector<std::string>& numeric_stage_names();

}  // namespace attn::grade
