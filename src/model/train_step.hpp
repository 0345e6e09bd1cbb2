// model/train_step.hpp — one training step's forward and backward through a whole
// decoder of any family of model/architecture (GPT-2, the Llama family), layer by layer
// with model/train_layers and model/llama_layers (each component chosen by the
// architecture: LayerNorm | RMSNorm, learned | rotary positions, multi-head | grouped-
// query attention, GELU | SwiGLU MLP, tied | untied unembedding), every
// activation and every activation gradient kept in buffers allocated once for a batch
// shape and reused every step (this VM charges ~12 µs per newly touched page).
//
// The buffers carry TransformerLens's names (list_stages): the forward's
// `blocks.0.attn.hook_pattern` is, in the backward, `grad.blocks.0.attn.hook_pattern`
// (dLoss/d of that stage), so a gradient is a stage like any other.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/llama_layers.hpp"
#include "model/train_layers.hpp"
#include "model/params.hpp"

namespace attn::model {

// One block's stages. Sizes: N = batch·pos rows, C = d_model, NH heads, T positions;
// the Llama family: H = NH query heads, KV key/value heads, dh = d_head, F = d_mlp.
template <class T>
struct train_block_acts {
    std::vector<T> ln1, ln1_mean, ln1_rstd;  // [N, C], [N], [N]   ln1.out (after weight and bias; RMSNorm: mean unused)
    std::vector<T> qkv;                      // [N, qkv_width]      q | k | v (GPT-2: 3C, hook_q/k/v side by side)
    std::vector<T> scores;                   // [B, NH, T, T]       attn.hook_attn_scores
    std::vector<T> pattern;                  // [B, NH, T, T]       attn.hook_pattern
    std::vector<T> z;                        // [N, C]              attn.hook_z (heads side by side)
    std::vector<T> attn_out;                 // [N, C]              hook_attn_out
    std::vector<T> resid_mid;                // [N, C]              hook_resid_mid
    std::vector<T> ln2, ln2_mean, ln2_rstd;  // [N, C], [N], [N]   ln2.out (MLP only)
    std::vector<T> mlp_pre, mlp_post;        // [N, 4C]             mlp.hook_pre / hook_post
    std::vector<T> mlp_tanh;                 // [N, 4C]             GELU's tanh, kept for the backward
    std::vector<T> mlp_out;                  // [N, C]              hook_mlp_out
    std::vector<T> resid_post;               // [N, C]              hook_resid_post
    std::vector<T> ln1_normalized, ln2_normalized;  // [N, C]  ln1/ln2.hook_normalized (before weight and bias)
    // The Llama family only (empty for GPT-2):
    std::vector<T> ln1_scale, ln2_scale;       // [N]               ln1/ln2.hook_scale = 1/rstd (RMSNorm)
    std::vector<T> q, k, v;                    // [N, H·dh], [N, KV·dh], [N, KV·dh]  attn.hook_q, hook_k, hook_v
    std::vector<T> rot_q, rot_k;               // [N, H·dh], [N, KV·dh]  attn.hook_rot_q, hook_rot_k (rotary only)
    std::vector<T> mlp_pre_linear;             // [N, F]            mlp.hook_pre_linear (SwiGLU's up; hook_pre is the gate)
    // With scores and pattern empty (not kept: a traced forward's block nobody asked for),
    // where attention found their first non-finite number as it computed them.
    training::grid_faults unkept;
};

// The whole model's stages for a batch of B sequences of T positions. The same type
// holds the gradients (then mean/rstd stay unused).
template <class T>
struct train_acts {
    std::size_t B = 0, Tn = 0;
    std::vector<T> embed;                   // [N, C]  hook_embed + hook_pos_embed = blocks.0.hook_resid_pre
    std::vector<train_block_acts<T>> blocks;      // [n_layer]
    std::vector<T> lnf, lnf_mean, lnf_rstd; // [N, C], [N], [N]  ln_final.out
    std::vector<T> logits, probs;           // [N, V]
    std::vector<T> losses;                  // [N]     per-position cross-entropy (0 where ignored)
    std::vector<T> lnf_normalized;          // [N, C]  ln_final.hook_normalized
    std::vector<T> lnf_scale;               // [N]     ln_final.hook_scale (RMSNorm only)
    llama::rotary_table rotary;             // rotary positions only: cos, sin [Tn, rotated_dims/2]
};

// Buffers for batches of B sequences of Tn ≤ n_positions tokens: the first `kept_blocks`
// blocks' (all of them by default), and logits and probs unless `with_outputs` is false
// (a reading forward that reuses one block's buffers and writes its outputs elsewhere);
// without `with_grids`, the blocks' scores and pattern stay empty (attention then keeps
// neither: forward_block computes them a few rows at a time and drops them).
template <class T>
train_acts<T> make_train_acts(const architecture& config, std::size_t B, std::size_t Tn,
                              std::size_t kept_blocks = static_cast<std::size_t>(-1), bool with_outputs = true,
                              bool with_grids = true);
// One block's buffers for B × Tn.
template <class T>
train_block_acts<T> make_block_acts(const architecture& config, std::size_t B, std::size_t Tn, bool with_grids = true);

// Sets to 0, without reallocating, every buffer a backward adds into: all but the
// attention grids (scores, pattern), which attention_backward writes whole, and mean/rstd.
template <class T>
void zero_acts(train_acts<T>& acts);
template <class T>
void zero_params_in_place(model_params<T>& params);

// An optional callback of train_forward for activation patching (model/patching): called
// with a stage's TransformerLens name and its buffer right after the forward computed it,
// before anything reads it; it may overwrite the values. Called for
// blocks.L.hook_resid_pre [B, Tn, C] (before block L) and blocks.L.attn.hook_z
// [B, Tn, NH, hs] (before W_O) only. Null (the default): nothing is called, same bits.
template <class T>
using stage_patch = std::function<void(const std::string& stage, T* data)>;

// The forward: tokens and targets [B, Tn] (targets < 0 ignored). Returns the mean loss.
template <class T>
double train_forward(const model_params<T>& params, train_acts<T>& acts, const std::int32_t* tokens,
                     const std::int32_t* targets, const stage_patch<T>* patch = nullptr);

// train_forward's steps, for a forward that keeps fewer stages (model/traced_forward): the
// embeddings of tokens [B, Tn] into acts.embed (the stream entering block 0); block l from the stream x [B·Tn, C] that enters it into a's buffers (stop checked
// between its attention and its MLP); and the final norm (into acts' lnf buffers), the
// logits and probs [B·Tn, V] and the loss (acts' losses) from the last stream x.
template <class T>
void forward_embed(const model_params<T>& params, train_acts<T>& acts, const std::int32_t* tokens);
template <class T>
void forward_block(const model_params<T>& params, std::size_t l, train_block_acts<T>& a, const T* x,
                   const llama::rotary_table& rot, std::size_t B, std::size_t Tn, const stage_patch<T>* patch = nullptr);
template <class T>
double forward_head(const model_params<T>& params, train_acts<T>& acts, const T* x, T* logits, T* probs,
                    const std::int32_t* targets);

// The backward of the last train_forward: zeroes grads, then fills them and grad_acts
// (grads: dLoss/dparameter, same shapes as params; grad_acts: dLoss/dstage, each buffer
// written whole by its first contribution, so none needs zeroing).
template <class T>
void train_backward(const model_params<T>& params, model_params<T>& grads, const train_acts<T>& acts,
                    train_acts<T>& grad_acts, const std::int32_t* tokens, const std::int32_t* targets);

// One stage as a view: its TransformerLens name, its shape and its contiguous data.
template <class T>
struct train_stage {
    std::string name;                // "blocks.0.attn.hook_pattern"
    std::vector<std::size_t> shape;  // [batch, head, query_pos, key_pos]
    const T* data;                   // null: computed but not kept (a grid of train_block_acts::unkept)
    std::size_t fault = static_cast<std::size_t>(-1);  // data null: its first non-finite index (-1: none)
};

// Every stage kept, in the model's order; prefix "grad." for the gradients. GPT-2's are
// ln1.out, attn.hook_qkv, …; the Llama family's TransformerLens's hooks (ln1.hook_scale,
// ln1.hook_normalized, attn.hook_q [batch, pos, head, d_head], hook_k / hook_v with the
// key/value heads, hook_rot_q, hook_rot_k, hook_attn_scores, hook_pattern, hook_z,
// hook_attn_out, mlp.hook_pre (gate), mlp.hook_pre_linear (up), mlp.hook_post, …,
// ln_final.hook_normalized, logits). The gradient list leaves out what the backward does
// not fill (hook_scale, hook_normalized).
template <class T>
std::vector<train_stage<T>> list_stages(const architecture& config, const train_acts<T>& acts,
                                       const std::string& prefix = "");
// list_stages in parts: block l's stages (from its ln1 to its hook_resid_post), and the
// final norm's, logits and probs (those at `logits`, `probs`), appended to `out`.
template <class T>
void list_block_stages(const architecture& config, const train_block_acts<T>& block, std::size_t l, std::size_t B,
                       std::size_t Tn, std::vector<train_stage<T>>& out, const std::string& prefix = "");
template <class T>
void list_head_stages(const architecture& config, const train_acts<T>& acts, const T* logits, const T* probs,
                      std::vector<train_stage<T>>& out, const std::string& prefix = "");

// Block l's ln1 and q|k|v alone, into a's buffers as forward_block makes them (the Llama
// family's q, k, v split out and rotated into rot_q, rot_k): the same bits and nothing after
// them, for a reader of a layer's heads (lessons/model_head_inputs: the grader's trained-head
// numbers skip that block's attention and MLP). x [B·Tn, C]: the stream entering block l.
template <class T>
void forward_block_qkv(const model_params<T>& params, std::size_t l, train_block_acts<T>& a, const T* x,
                       const llama::rotary_table& rot, std::size_t B, std::size_t Tn);

}  // namespace attn::model
