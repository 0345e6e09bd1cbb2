// core/recipe.hpp — attention's one recipe. Every floor that computes attention (the
// spec of `attn trace`, the lessons' runs and show items, the grader's pipeline) calls
// it; none composes RoPE, grouped-query heads, tiles or gradients itself
// (tests/python/test_core_recipe_structure.py). In order, for query head h:
//
//   project      Q = X W_Q, K = X_src W_K, V = X_src W_V             (project_qkv)
//   heads        Q's columns of head h, K's and V's of its K/V group g = h / (H/G)
//   rotate       q, k turned by their positions (RoPE; adjacent or half-split pairs)
//   raw scores   q kᵀ                                 ┐
//   scale        ÷ scale (√d_k unless given)           │  core/attention.hpp, or
//   bias / mask  + bias, masked_fill where blocked     │  core/fast_attention.hpp
//   softmax      over the keys (or none: lesson 04)    │  on the fast path
//   weights · V  z_h                                  ┘
//   result       z_h W_O[rows of h]; out = Σ_h result_h (with W_O)
//   options      tile: the online softmax of the same q, k, v (core/tiled.hpp)
//                backward: every gradient of the forward above, given dL/dz_h
//                (core/backward.hpp)
//
// Each stage is kept under its id of core/stages.hpp. The window (lesson 19), the
// causal and padding masks are the mask: the caller builds it from its input
// (core/mask.hpp, core/window.hpp) and the recipe applies it.
//
// Two paths, as llm.c splits them: the reference path (attention_recipe: doubles,
// every stage of every head as core/attention.hpp keeps it) for lessons and the
// grader, and the fast path (fast_recipe: float or double, core's own kernels, only the
// stages the caller keeps) for `attn trace` on real sizes. Both share the head
// columns, the rotation, the tiled forward and the backward, so they apply them in
// the same order.
#pragma once

#include <limits>
#include <optional>
#include <vector>

#include "core/attention.hpp"
#include "core/backward.hpp"
#include "core/fast_attention.hpp"
#include "core/rope.hpp"
#include "core/tiled.hpp"

namespace attn {

struct rope_option {
    double base = 10000.0;
    rope_pairing pairing = rope_pairing::adjacent;
    double offset = 0.0;  // position of row 0 (a query block of a longer sequence)
};

// The options of the recipe. Every option that is absent leaves its stages out
// (core/stages.hpp's `needs`); defaults are one head of plain softmax attention.
struct recipe_options {
    std::size_t heads = 1;                 // H query heads: Q has H·d_k columns
    std::size_t kv_heads = 0;              // G key/value heads (G divides H); 0 = H
    std::optional<rope_option> rope;       // rotate q and k before the scores
    std::optional<bool_matrix> mask;       // [n_q, n_k] true = attend, every head
    std::vector<matrix> bias;              // [1 or H] each [n_q, n_k], added to the scaled scores
    double masked_fill = -std::numeric_limits<double>::infinity();
    std::optional<double> scale_divisor;   // absent = √d_k
    bool softmax = true;                   // false: the masked scores are the weights (blocked = 0)
    std::optional<std::size_t> tile;       // also the online-softmax forward, this many keys per block
    bool skip_rescale = false;             // the tiled forward forgets the rescaling (lesson 16's slip)
    std::optional<matrix> grad_output;     // [n_q, H·d_v] dL/dz: also the backward
    std::optional<matrix> w_o;             // [H·d_v, d_model]: result per head and their sum
};

// X W_Q, X_src W_K, X_src W_V. // [n_q, H·d_k], [n_k, G·d_k], [n_k, G·d_v]
struct projected_qkv {
    matrix q, k, v;
};
projected_qkv project_qkv(const matrix& x, const matrix& x_src, const matrix& w_q, const matrix& w_k,
                          const matrix& w_v);

// What the recipe keeps of head h besides its forward (the options' stages).
struct recipe_extras_head {
    std::size_t group = 0;                    // the K/V head it reads
    std::optional<rope_steps> rope_q, rope_k; // with rope: before and after the rotation
    std::optional<tiled_steps> tiled;         // with tile
    std::optional<attention_grads> grads;     // with grad_output
};

// The reference path: one head, every stage.
struct recipe_head : recipe_extras_head {
    attention_steps forward;  // q, k as the scores saw them (rotated with rope)
    matrix result;            // [n_q, d_model] z_h W_O[rows of h]; empty without W_O
};

struct recipe_steps {
    std::vector<recipe_head> heads;  // [H]
    matrix concat;                   // [n_q, H·d_v] the heads' z side by side
    matrix attn_out;                 // [n_q, d_model] Σ_h result_h; empty without W_O
};

// Throws shape_error when the columns do not split into H (Q) and G (K, V) heads, or
// a mask, bias or dL/dz has the wrong shape.
recipe_steps attention_recipe(const matrix& q, const matrix& k, const matrix& v, const recipe_options& options = {});
// Head h alone (q, k, v hold every head's columns; with one head, the whole matrices).
recipe_head attention_recipe_head(const matrix& q, const matrix& k, const matrix& v, const recipe_options& options,
                                  std::size_t h = 0);

// Weights from given scores the recipe's way: blocked cells of `mask` (same shape
// only) −inf before a softmax along rows, or 0 without one. A fully blocked row gives zeros.
matrix weights_of_scores(const matrix& scores, const std::optional<bool_matrix>& mask, bool softmax);

// The fast path: one head as the kernels left it, in T.
template <class T>
struct fast_recipe_head {
    fast_matrix<T> q, k, v;          // [n_q, d_head], [n_k, d_head], [n_k, d_head_v] (rotated with rope)
    fast_matrix<T> bias;             // [n_q, n_k], or empty without a bias
    fast_matrix<T> scores_raw;       // [rows, n_k]  rows = n_q, or 1 in one-query mode
    fast_matrix<T> weights;          // [rows, n_k]
    fast_matrix<T> z;                // [rows, d_head_v]
    fast_matrix<T> result;           // [n_q, d_model] with W_O, else empty
    std::vector<bool> fully_masked;  // [rows]
    T scale = 1;
};

struct fast_recipe_options {
    keep_mode keep = keep_mode::all_stages;  // all_stages or one_query
    std::size_t query = 0;                   // the row one_query keeps
    unsigned threads = 1;
};

// Every head of one sequence (or batch item) through the recipe on the fast kernels:
// appends head h's data to `heads` and its options' stages to `extras` (the tiled
// forward and the backward read the forward as kept, in double), and with W_O sets
// attn_out [n_q, d_model]. softmax = false is the reference path's only.
template <class T>
void fast_recipe(const matrix& q, const matrix& k, const matrix& v, const recipe_options& options,
                 const fast_recipe_options& fast, fast_steps<T>& workspace, std::vector<fast_recipe_head<T>>& heads,
                 std::vector<recipe_extras_head>& extras, fast_matrix<T>& attn_out);

}  // namespace attn
