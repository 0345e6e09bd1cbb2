// core/recipe_internal.hpp — the steps core/recipe.cpp (reference path) and
// core/recipe_fast.cpp (fast path) share, so both apply the heads' columns, the
// rotation, the tiled forward and the backward in one order. Not for other floors.
#pragma once

#include "core/recipe.hpp"

namespace attn::detail {

struct head_widths {
    std::size_t d_k = 0, d_v = 0;
    bool split = false;  // false: one head, the matrices are used whole
};
struct head_qkv {
    matrix q, k, v;  // [n_q, d_k], [n_k, d_k], [n_k, d_v]
};

// Per-head widths after checking that the columns split into H (Q) and G (K, V) heads.
head_widths check_heads(const matrix& q, const matrix& k, const matrix& v, const recipe_options& o);
// Head h's q, k, v as its scores see them: its own Q columns, its group's K/V columns,
// q and k rotated with rope (kept in ex, with the group).
head_qkv head_inputs(const matrix& q, const matrix& k, const matrix& v, const recipe_options& o, const head_widths& w,
                     std::size_t h, recipe_extras_head& ex);
// The scores' options of head h: the mask, its bias, the fill and the divisor.
attention_options head_scores(const recipe_options& o, std::size_t h);
// After head h's forward: the tiled forward of the same q, k, v, and the backward.
void head_options_stages(const head_qkv& hi, const attention_steps& forward, const recipe_options& o,
                         const attention_options& a, const head_widths& w, std::size_t h, recipe_extras_head& ex);
// True when the options ask for a stage computed on the forward as kept (tile, backward).
inline bool needs_forward_steps(const recipe_options& o) { return o.tile || o.grad_output; }

}  // namespace attn::detail
