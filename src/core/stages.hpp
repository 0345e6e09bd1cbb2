// core/stages.hpp — the one stage vocabulary of attn, on the ground floor: every stage
// of an attention computation (core/recipe.hpp computes them all) with its id, its
// TransformerLens name, the short word the lessons use, its export axes, a one-line
// description, the caption a table titles it with, whether it is a [query × key] score
// map, its printed decimals, and what a computation must be given for it to exist. The
// recipe keeps each stage under its id; the tracer prints this table (`attn trace
// --list-stages`, trace/stages.hpp), the exporters, the lessons and the grader read it;
// no floor above core spells a stage name in a table of its own
// (tests/python/test_core_recipe_structure.py).
//
// Names mirror TransformerLens where the stage matches (hook_q, hook_k, hook_v,
// hook_attn_scores = scaled and masked, hook_pattern = softmax weights, hook_z =
// weights·V per head, hook_result = z_h·W_O per head, hook_attn_out = Σ_h hook_result,
// hook_rot_q / hook_rot_k after RoPE) and add what it lacks (hook_attn_scores_raw = QKᵀ,
// hook_attn_scores_scaled = before the mask, the online softmax's tiled_*, the
// backward's grad_*). Each stage also has the short word the lessons use (q, k, v, raw,
// scaled, masked, weights, output, result, attn_out, …). "output" is the lessons' word
// for one head's weights·V (hook_z), never the W_O-projected sum (attn_out).
//
// A model's per-layer hook (model/hooks.hpp) is one of these stages under a layer
// prefix ("blocks.L.attn." + stage_info_of(s).hook).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/attention.hpp"

namespace attn {

enum class stage {
    q, k, v, scores_raw, scores_scaled, scores_masked, weights, z, result, attn_out,  // the forward
    rot_q, rot_k,                                                                     // rope (lesson 17)
    tiled_running_max, tiled_running_sum, tiled_correction, tiled_partial_output, tiled_z,  // tile (lesson 16)
    grad_z, grad_v, grad_pattern, grad_attn_scores, grad_attn_scores_raw, grad_q, grad_k,  // backward (lesson 15)
};

// What a computation must be given for a stage to exist (the recipe's options).
enum class stage_needs { nothing, w_o, rope, tile, backward };

// How a stage is laid out in exports (C order), after TransformerLens.
enum class stage_layout {
    per_position,  // [batch, pos, head, d]        hook_q, hook_k, hook_v, hook_z, hook_result
    per_head,      // [batch, head, query_pos, key_pos|block]   the score stages, tiled_* maps
    summed_heads,  // [batch, query_pos, d_model]  hook_attn_out
    per_block,     // [batch, head, block, query_pos, d_head_v]  tiled_partial_output (one matrix per key block)
};

struct stage_info {
    stage id;
    const char* hook;               // TransformerLens name: "hook_pattern"
    const char* alias;              // the lessons' word: "weights"
    std::vector<const char*> axes;  // export axes: {"batch", "head", "query_pos", "key_pos"}
    stage_layout layout;
    const char* what;               // one line for people: "softmax over key_pos (...)"
    const char* caption;            // word in table titles: "weights softmax(S)"
    bool is_score;                  // a forward [query × key] score map: heatmaps, masks
    int decimals;                   // printed decimals, as the seeds print them
    stage_needs needs;              // only when the computation is given W_O, rope, tile or backward
};

// Every stage, in computation order. The one table.
const std::vector<stage_info>& all_stages();
// The stages one head's attention_steps holds (q … z).
std::vector<stage_info> head_stages();
const stage_info& stage_info_of(stage s);
// Accepts a TransformerLens name or the lessons' word; nullopt if unknown.
std::optional<stage> parse_stage(const std::string& name);
// The same for the stages of one head only (lessons: a run has no W_O).
std::optional<stage> parse_head_stage(const std::string& name);
// "q, k, v, raw, scaled, masked, weights, output" (head stages) for lesson errors.
std::string stage_alias_list();
// "hook_q (q), hook_k (k), …, hook_attn_out (attn_out)" — every stage, for --stage errors.
std::string stage_name_list();
// "[batch, head, query_pos, key_pos]"
std::string axes_text(const stage_info& si);

// The matrix of one head stage of a run; throws internal_error for the stages one
// head's attention_steps does not hold (result, attn_out and the options' stages).
const matrix& stage_matrix(const attention_steps& steps, stage s);

// The axes one head's matrix of a stage runs along: its rows "query_pos" or "key_pos",
// its columns the last export axis ("key_pos", "block", "d_head", "d_head_v", "d_model").
struct matrix_axes {
    std::string rows, cols;
};
matrix_axes matrix_axes_of(stage s);

// The quantities read off the stages that a lesson may ask for on their own — the
// divisor of the raw scores and the key each query attends to most. They are not
// stages (nothing exports them).
enum class stage_quantity { scale, argmax };
const char* quantity_word(stage_quantity q);  // "scale", "argmax"

// The vocabulary's words as strings, for code that compares them (the grader's
// exercise parts name stages this way): a stage's alias, a quantity's word.
namespace stage_word {

const std::string& of(stage s);           // its alias: "weights"
const std::string& of(stage_quantity q);  // "scale", "argmax"

inline const std::string& q() { return of(stage::q); }
inline const std::string& k() { return of(stage::k); }
inline const std::string& v() { return of(stage::v); }
inline const std::string& raw() { return of(stage::scores_raw); }
inline const std::string& scaled() { return of(stage::scores_scaled); }
inline const std::string& masked() { return of(stage::scores_masked); }
inline const std::string& weights() { return of(stage::weights); }
inline const std::string& output() { return of(stage::z); }
inline const std::string& rot_q() { return of(stage::rot_q); }
inline const std::string& rot_k() { return of(stage::rot_k); }
inline const std::string& running_max() { return of(stage::tiled_running_max); }
inline const std::string& running_sum() { return of(stage::tiled_running_sum); }
inline const std::string& grad_v() { return of(stage::grad_v); }
inline const std::string& grad_weights() { return of(stage::grad_pattern); }
inline const std::string& grad_scores() { return of(stage::grad_attn_scores); }
inline const std::string& grad_q() { return of(stage::grad_q); }
inline const std::string& grad_k() { return of(stage::grad_k); }
inline const std::string& scale() { return of(stage_quantity::scale); }
inline const std::string& argmax() { return of(stage_quantity::argmax); }

// q, k or v: the attention's inputs (the ones a student may choose in an exercise).
inline bool is_input(const std::string& s) { return s == q() || s == k() || s == v(); }

}  // namespace stage_word

}  // namespace attn
