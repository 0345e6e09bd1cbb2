// trace/trace_extras.hpp — what `attn trace` computes for the spec keys of lessons
// 15–19 (io/trace_spec_extras.hpp), per batch item and head, next to the forward, as
// options of the one recipe (core/recipe.hpp): rotary embeddings of q and k (rope),
// the online-softmax forward (tile), every gradient (backward), and which K/V head
// each query head reads (kv_heads); and how the tracer shows them.
// Exported under these names (layouts as trace/export.hpp):
//   hook_rot_q            [batch, query_pos, head, d_head]    q after the rotation
//   hook_rot_k            [batch, key_pos, head, d_head]      k after the rotation (as head h read it)
//   tiled_running_max     [batch, head, query_pos, block]     m after each key block
//   tiled_running_sum     [batch, head, query_pos, block]     l after each key block
//   tiled_correction      [batch, head, query_pos, block]     exp(m_old − m_new) of each block
//   tiled_partial_output  [batch, head, block, query_pos, d_head_v]  o after each block, not yet ÷ l
//   tiled_z               [batch, query_pos, head, d_head_v]  o / l, the tiled hook_z
//   grad_z                [batch, query_pos, head, d_head_v]  dL/dO as given
//   grad_v                [batch, key_pos, head, d_head_v]    Aᵀ dO
//   grad_pattern          [batch, head, query_pos, key_pos]   dO Vᵀ
//   grad_attn_scores      [batch, head, query_pos, key_pos]   A ⊙ (dA − Σ_k A dA)
//   grad_attn_scores_raw  [batch, head, query_pos, key_pos]   ÷ scale
//   grad_q                [batch, query_pos, head, d_head]
//   grad_k                [batch, key_pos, head, d_head]
// With rope, hook_q and hook_k keep the vectors before the rotation (as in
// TransformerLens); the scores are computed from hook_rot_q and hook_rot_k.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/attention.hpp"
#include "core/recipe.hpp"
#include "io/trace_spec.hpp"
#include "core/stages.hpp"
#include "trace/style.hpp"
#include "trace/table.hpp"

namespace attn::trace {

// The options' stages of every head, as the recipe kept them (core/recipe.hpp).
struct trace_extras {
    std::vector<recipe_extras_head> heads;  // [batch·heads], item b·heads + h

    bool has_rope() const { return !heads.empty() && heads.front().rope_q.has_value(); }
    bool has_tile() const { return !heads.empty() && heads.front().tiled.has_value(); }
    bool has_backward() const { return !heads.empty() && heads.front().grads.has_value(); }
    const rope_steps& rope_q(std::size_t i) const { return *heads.at(i).rope_q; }
    const rope_steps& rope_k(std::size_t i) const { return *heads.at(i).rope_k; }
    const tiled_steps& tiled(std::size_t i) const { return *heads.at(i).tiled; }
    const attention_grads& grads(std::size_t i) const { return *heads.at(i).grads; }
    std::size_t group(std::size_t h) const { return heads.at(h).group; }  // the K/V head query head h reads
};

// True when the spec asks for anything the plain multi-head path does not compute.
bool needs_extras(const io::trace_inputs& in);

// The recipe's options for batch item b of a spec (core/recipe.hpp).
recipe_options recipe_options_of(const io::trace_inputs& in, std::size_t b);

// One flat C-order stage, as export_stage holds it (names and axes: trace/stages.hpp).
struct extra_stage {
    stage id;
    std::vector<std::size_t> shape;
    std::vector<double> data;
};

struct trace_run;
std::vector<extra_stage> extra_stages(const trace_run& r);

// The online softmax of head h of batch item b as tables, in the vocabulary's order:
// running max, running sum, correction, the partial output o after each key block
// (one table per block) and o / l. The text trace and the HTML report draw these.
std::vector<std::pair<stage, table>> tiled_tables(const trace_run& r, std::size_t b, std::size_t h);

// The unrotated q or k of every head, [batch, pos, head, d_head] in C order, to
// put back into hook_q / hook_k (nothing when rope is off).
std::vector<double> unrotated(const trace_run& r, bool keys);

// The terminal tables of one head's extras (after its forward tables), those of the
// stages `wanted` says yes to.
std::string render_extras(const trace_run& r, std::size_t b, std::size_t h, const style& st,
                          const std::function<bool(stage)>& wanted);

// The per-token trace's extras for query `row`: the online softmax block by block
// (tile) and the softmax backward key by key (backward); "" when neither was asked.
std::string explain_extras_query(const trace_run& r, std::size_t b, std::size_t h, std::size_t row, const style& st);

}  // namespace attn::trace
