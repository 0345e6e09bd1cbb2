// model/explain.hpp — why a head attends where it does, and what it writes, from one
// forward of the model floor (model/train_step's train_forward, every stage kept).
//
// The residual stream entering a layer at a position is exactly a sum of components
// (TransformerLens's decompose_resid and stack_head_results): the token embedding
// (embed), the position embedding (pos_embed), each earlier head's output
// (blocks.l.attn.head.h = hook_z of that head · its rows of W_O, TransformerLens's
// hook_result), each earlier MLP's output (blocks.l.mlp = hook_mlp_out, its own bias
// included) and the attention output biases b_O of the earlier layers (bias). A layer
// norm divides each position by a scale taken from the actual forward (its rstd), and
// its centering is linear, so with that scale frozen a norm is linear in each component;
// the norm's weight folds into the next projection and its bias, with b_Q / b_K / b_V,
// joins the bias component. Hence a pre-softmax score is exactly a sum of
// (query-side component · key-side component) / √d_head terms, and a logit a sum of
// per-component direct logit attributions (DLA) through ln_final frozen the same way.
//
// Everything here is computed in float64 from the forward's stages (float32 stages are
// widened), and every stage is read through one accessor (stage_of, norm_rstd) by its
// TransformerLens name, so a change of train_acts' buffers touches one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/params.hpp"
#include "model/train_step.hpp"

namespace attn::model {

// One sequence's forward, kept: tokens, the next-token targets (−1 at the last
// position) and every stage.
template <class T>
struct forward_record {
    std::vector<std::int32_t> tokens;   // [P]
    std::vector<std::int32_t> targets;  // [P] tokens[i + 1], −1 at the last
    train_acts<T> acts;                 // batch 1, P positions
    double loss = 0;                    // mean next-token cross-entropy
};

// Checks the ids against the model (each < vocab, 1 ≤ length ≤ n_positions) and runs
// train_forward; patch, when given, may overwrite stages as they are computed.
template <class T>
forward_record<T> record_run(const model_params<T>& p, const std::vector<int>& tokens,
                                 const stage_patch<T>* patch = nullptr);

// The accessor: a stage of the record by its TransformerLens name (list_stages' names:
// "blocks.1.attn.hook_pattern", "blocks.0.attn.hook_z" …), its data as stored.
// Throws attn::internal_error for a name the forward does not keep.
template <class T>
train_stage<T> stage_of(const architecture& c, const train_acts<T>& a, const std::string& name);
// A norm's per-position scale 1/√(var + ε) as the forward computed it ([P]); norm is
// "blocks.L.ln1", "blocks.L.ln2" or "ln_final" (TransformerLens's hook_scale is its inverse).
template <class T>
const T* norm_rstd(const train_acts<T>& a, const std::string& norm);

// One write into the residual stream at one position.
struct residual_component {
    std::string name;           // "embed", "pos_embed", "blocks.0.attn.head.1", "blocks.0.mlp", "bias"
    std::vector<double> value;  // [d_model]
};

// The components of the residual stream entering block `layer` (layer = n_layer: the
// stream ln_final reads) at position pos, in that order: embed, pos_embed, per earlier
// layer its heads then its MLP, bias last. They sum to the stage (hook_resid_pre).
template <class T>
std::vector<residual_component> residual_components(const model_params<T>& p, const forward_record<T>& r,
                                                     std::size_t layer, std::size_t pos);

// One score split into terms: terms[i][j] = (query side i) · (key side j) / √d_head.
struct score_decomposition {
    std::size_t layer = 0, head = 0, query = 0, key = 0;
    std::vector<std::string> components;      // [n] the names of residual_components (bias last)
    std::vector<std::vector<double>> terms;   // [n query-side][n key-side]
    double sum = 0;                           // Σ terms
    double model_score = 0;                   // blocks.L.attn.hook_attn_scores[0, head, query, key]
    double weight = 0;                        // blocks.L.attn.hook_pattern[0, head, query, key]
};

// Throws attn::error for a key after the query (masked: its score is −∞).
template <class T>
score_decomposition explain_score(const model_params<T>& p, const forward_record<T>& r, std::size_t layer,
                                  std::size_t head, std::size_t query, std::size_t key);

// Why key rather than other: score(query, key) − score(query, other) split the same way
// (terms of the first minus terms of the second; model_score the two scores' difference,
// weight the first key's). Softmax sees only such differences within a row.
template <class T>
score_decomposition explain_difference(const model_params<T>& p, const forward_record<T>& r, std::size_t layer,
                                       std::size_t head, std::size_t query, std::size_t key, std::size_t other);

// The keys a query attends to most, in order of weight (ties: the earlier key first).
template <class T>
std::vector<std::size_t> top_keys(const forward_record<T>& r, const architecture& c, std::size_t layer,
                                  std::size_t head, std::size_t query, std::size_t count);

// ---- what a head writes (direct logit attribution) -----------------------------------

// The logit of every token a vector written into the final residual stream at pos adds,
// through ln_final with its scale frozen from the forward (centered, · rstd, · weight,
// then W_U). with_bias adds ln_final's bias (the "bias" component's share). [vocab]
template <class T>
std::vector<double> direct_logits(const model_params<T>& p, const forward_record<T>& r, std::size_t pos,
                                  const std::vector<double>& write, bool with_bias);

// A head's output at a query as a sum over keys: weight_k · (v_k · W_O,h).
struct head_write {
    std::size_t key = 0;
    double weight = 0;           // hook_pattern[0, head, query, key]
    std::vector<double> value;   // [d_model] weight · (v_k · W_O,h)
};
template <class T>
std::vector<head_write> head_writes(const model_params<T>& p, const forward_record<T>& r, std::size_t layer,
                                    std::size_t head, std::size_t query);

// Every final-stream component's direct logit attribution to `target` at pos (heads
// and MLPs by layer, embed, pos_embed, bias): they sum to logits[pos, target].
struct logit_attribution {
    std::vector<std::string> components;  // [n] residual_components' names at layer n_layer
    std::vector<double> values;           // [n]
    double model_logit = 0;               // logits[pos, target]
};
template <class T>
logit_attribution attribute_logit(const model_params<T>& p, const forward_record<T>& r, std::size_t pos,
                                  std::size_t target);

}  // namespace attn::model
