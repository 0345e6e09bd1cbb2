// lessons/exercise_numbers.hpp — where a numeric exercise's numbers come from, as the
// lesson loader reads them from its [[exercise]] table (lessons/README.md, "Exercises"):
// a run of the lesson with everything it was computed with, matrices named by the
// lesson, Q, K and V of the student's own choosing, or a trained head (lessons 20–22);
// the changes the exercise makes to them (rows, masks, scale, no softmax, lessons
// 15–19's gradient, tiles, rotation and window); and how per-student variants are
// drawn. The grader computes on these (grade/pipeline.hpp) and draws the variants.
#pragma once

#include <array>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/attention.hpp"
#include "lessons/model_head_inputs.hpp"
#include "trace/stages.hpp"

namespace attn::lessons {

// Inputs of one computation: the lesson's numbers or a student's variant of them.
struct exercise_inputs {
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
    // Lessons 15–19 (grade/pipeline.hpp).
    std::optional<matrix> grad_output;   // [n_q, d_v] dL/dO: the gradient stages
    std::optional<std::size_t> tile;     // keys per block: the online-softmax stages
    std::optional<double> rope_base;     // q and k rotated by position before the scores
    std::optional<std::size_t> window;   // already in mask; kept for the off-by-one mistake
    bool window_causal = false;
    std::vector<other_head> other_heads;  // lessons 20–22: a mistake's heads (grade/mistakes.cpp)
    std::vector<int> model_tokens;        // [P] a trained head's input
};

// The lesson's own numbers (before variants), named as the lesson's run names them.
struct numeric_setup : exercise_inputs, trace::run_labels {
    std::string run;                     // lesson run it starts from ("" when q/k/v are named)
    std::string run_kind = "self";       // self | causal | cross (for the diagnosis wording)
    bool student_inputs = false;         // the student chooses Q, K, V (graded for self-consistency)
    std::map<std::string, std::array<std::size_t, 2>> input_shapes;  // with student_inputs
    std::optional<model_source> model;   // lessons 20–22: a trained head (lessons/model_head_inputs.hpp)
};

// How per-student numbers are drawn ([exercise.variant]; the draws are the grader's:
// project PRNG, seed from secret + student + exercise).
struct variant_spec {
    bool enabled = false;
    std::vector<std::string> vary;  // roles: q, k, v, encoder_q
    std::string values = "halves";  // halves: k/2 in [lo, hi]; integers: [lo, hi]
    double lo = -2.0, hi = 2.0;
    bool tie = false;               // every varied role gets the first one's numbers (Q = K = V = X)
    std::string describe() const;   // "q, k, v: halves in [-2, 2]"
};

}  // namespace attn::lessons
