// grade/pipeline.hpp — the stages of one attention computation as the grader needs
// them: computed correctly through attn::scaled_dot_product_attention, or with one of
// the catalogued mistakes (mistakes.hpp), and cut to the rows/columns a part asks.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/attention.hpp"
#include "lessons/model_head_inputs.hpp"

namespace attn::grade {

// Inputs of one computation: the lesson's numbers or a student's variant of them.
struct pipeline_inputs {
    matrix q;                         // [n_q, d_k]
    matrix k;                         // [n_k, d_k]
    matrix v;                         // [n_k, d_v]
    std::optional<matrix> encoder_q;  // [n_k, d_k] cross-attention only
    std::optional<bool_matrix> mask;  // [n_q, n_k] attend polarity
    std::optional<matrix> bias;       // [n_q, n_k]
    double masked_fill = -std::numeric_limits<double>::infinity();
    std::optional<double> scale;      // absent = √d_k
    bool softmax = true;
    bool cross = false;               // queries and keys come from different sequences
    // Lessons 15–19 (grade/pipeline_extras.hpp).
    std::optional<matrix> grad_output;   // [n_q, d_v] dL/dO: the gradient stages
    std::optional<std::size_t> tile;     // keys per block: the online-softmax stages
    std::optional<double> rope_base;     // q and k rotated by position before the scores
    std::optional<std::size_t> window;   // already in mask; kept for the off-by-one mistake
    bool window_causal = false;
    std::vector<lessons::other_head> other_heads;  // lessons 20–22: a mistake's heads (mistakes.cpp)
    std::vector<int> model_tokens;                 // [P] a trained head's input
};

// Every stage; a stage a mistake cannot produce is left empty (size 0).
struct stage_values {
    matrix raw;       // [n_q, n_k] Q Kᵀ
    matrix scaled;    // [n_q, n_k]
    matrix masked;    // [n_q, n_k]
    matrix weights;   // [n_q, n_k]
    matrix output;    // [n_q, d_v]
    double scale = 1.0;
    std::vector<bool> fully_masked;  // [n_q]
    std::map<std::string, matrix> extra;  // the stages of lessons 15–19 by name (pipeline_extras.hpp)
};

attention_options options_of(const pipeline_inputs& in);
stage_values from_steps(const attention_steps& s);
stage_values compute_correct(const pipeline_inputs& in);

// The part's slice of a stage: rows/cols empty = all. "scale" is a 1×1 matrix.
// nullopt when the stage is empty or an index is outside it (a mistake of another shape).
std::optional<matrix> select_stage(const stage_values& s, const std::string& stage, const std::vector<std::size_t>& rows,
                                   const std::vector<std::size_t>& cols);

// Weights from given scores the way the exercise computes them: mask (same shape
// only), softmax along rows or not at all. A row with every key blocked gives zeros.
matrix weights_from_scores(const matrix& scores, const pipeline_inputs& in);

// x rounded to d decimals: half away from zero (as people round by hand), or half
// to even (as numpy.round and Python's round do) when half_even.
matrix round_to(const matrix& x, int decimals, bool half_even = false);

}  // namespace attn::grade
