// model/train_step.hpp — one training step's forward and backward through a whole
// GPT-style decoder (model/model_params), layer by layer with model/train_layers, every
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

#include "model/params.hpp"

namespace attn::model {

// One block's stages. Sizes: N = batch·pos rows, C = d_model, NH heads, T positions.
template <class T>
struct train_block_acts {
    std::vector<T> ln1, ln1_mean, ln1_rstd;  // [N, C], [N], [N]   ln1.out (after weight and bias)
    std::vector<T> qkv;                      // [N, 3C]             q | k | v (hook_q/k/v side by side)
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
};

// Buffers for batches of B sequences of Tn ≤ n_positions tokens.
template <class T>
train_acts<T> make_train_acts(const architecture& config, std::size_t B, std::size_t Tn);

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

// The backward of the last train_forward: zeroes grads and grad_acts, then fills them
// (grads: dLoss/dparameter, same shapes as params; grad_acts: dLoss/dstage).
template <class T>
void train_backward(const model_params<T>& params, model_params<T>& grads, const train_acts<T>& acts,
                    train_acts<T>& grad_acts, const std::int32_t* tokens, const std::int32_t* targets);

// One stage as a view: its TransformerLens name, its shape and its contiguous data.
template <class T>
struct train_stage {
    std::string name;                // "blocks.0.attn.hook_pattern"
    std::vector<std::size_t> shape;  // [batch, head, query_pos, key_pos]
    const T* data;
};

// Every stage kept, in the model's order; prefix "grad." for the gradients.
template <class T>
std::vector<train_stage<T>> list_stages(const architecture& config, const train_acts<T>& acts,
                                       const std::string& prefix = "");

}  // namespace attn::model
