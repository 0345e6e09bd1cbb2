// grade/pipeline_extras.hpp — the numeric stages of lessons 15–19 for the grader:
// gradients (exercise key `grad` = dL/dO), the online softmax (`tile`), rotary
// positions (`rope`) and window masks (`window`), computed through the core, and
// the catalogued mistakes a student makes on them (records in mistakes.cpp's list).
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

#include <optional>
#include <string>
#include <vector>

#include "grade/pipeline.hpp"

namespace attn::grade {

struct mistake_candidate;
struct exercise;
struct part_spec;

// Names of the stages above, for numeric_stage_names().
const std::vector<std::string>& extra_stage_names();

// Rows and columns of an extra stage, and whether they are keys; nullopt for other stages.
struct extra_stage_frame {
    std::size_t rows = 0, cols = 0;
    bool key_rows = false, key_cols = false;
    std::string title;  // for exercise show
};
std::optional<extra_stage_frame> extra_stage_shape(const std::string& stage, const matrix& q, const matrix& k,
                                                   const matrix& v, std::optional<std::size_t> tile);

// Recomputes the forward with rotated q, k when rope is on, then adds every extra stage.
void add_extra_stages(const pipeline_inputs& in, stage_values& s);

// The mistakes of lessons 15–19 (records in mistakes.cpp's catalogue): each appends its
// forms for these inputs, nothing when it does not apply.
using mistake_forms = std::vector<mistake_candidate>;
void jacobian_sum_missing(const pipeline_inputs& in, const stage_values& right, mistake_forms& out);
void gradient_not_scaled(const pipeline_inputs& in, const stage_values& right, mistake_forms& out);
void gradient_not_transposed(const pipeline_inputs& in, const stage_values& right, mistake_forms& out);
void online_not_rescaled(const pipeline_inputs& in, const stage_values& right, mistake_forms& out);
void rope_wrong_angle(const pipeline_inputs& in, const stage_values& right, mistake_forms& out);
void window_off_by_one(const pipeline_inputs& in, const stage_values& right, mistake_forms& out);

}  // namespace attn::grade
