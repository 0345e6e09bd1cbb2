// model/traced_forward.hpp — the traced forward of a decoder of any family (GPT-2, minGPT,
// nanoGPT, the Llama family) over a batch of token sequences, every intermediate under its
// TransformerLens name (model/hooks.hpp), in float32 or float64. It is a view, not a second
// forward: model/train_step's forward_block and forward_head compute (the one forward of
// the model floor, the backward beside it), layer by layer in one block's buffers, and
// traced_forward copies the stages a verb asks for (stage_request) into these buffers, shaped
// as the hooks are. For the GPT-2 family (the Llama family: RMSNorm, rotary q/k, SwiGLU):
//
//   x = wte[token] + wpe[pos]                                  hook_embed + hook_pos_embed
//   for each block L (pre-norm):
//     a = ln_1(x);  q | k | v = a W_qkv + b_qkv                ln1.hook_normalized, attn.hook_q/k/v
//     S = q kᵀ / √d_head, −inf where key > query               attn.hook_attn_scores
//     P = softmax_keys(S);  z = P v                            attn.hook_pattern, attn.hook_z
//     x = x + z W_O + b_O                                      hook_attn_out, hook_resid_mid
//     m = ln_2(x);  h = gelu(m W_fc + b_fc)                    ln2.hook_normalized, mlp.hook_pre/post
//     x = x + h W_proj + b_proj                                hook_mlp_out, hook_resid_post
//   logits = ln_f(x) W_Uᵀ (W_U = lm_head, or wte when tied);   ln_final.hook_normalized, logits
//   probs = softmax over the vocabulary                        probs
//
// Every product goes through core/matmul (results never depend on the thread count).
// Besides the hooks, the activations keep what the backward needs and the hooks do
// not hold (llm.c keeps the same): each layer norm's mean and 1/√(var + ε) per row
// and its output after weight and bias (the input of the next product).
// Buffers are xtensor containers in row-major (C) order; a [batch, pos, head, d_head]
// hook is the same memory as [batch·pos, d_model] with head h at columns h·d_head…
#pragma once

#include <cstddef>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "model/params.hpp"
#include "model/hooks.hpp"

namespace attn::model {

template <class T>
using act2 = xt::xtensor<T, 2>;
template <class T>
using act3 = xt::xtensor<T, 3>;
template <class T>
using act4 = xt::xtensor<T, 4>;

// One layer norm's kept rows: the hook and what the backward reads.
template <class T>
struct norm_acts {
    act3<T> scale;       // [B, P, 1]  hook_scale: √(mean(x²) + ε) (RMSNorm only; else empty)
    act3<T> normalized;  // [B, P, d]  hook_normalized: (x − mean) · rstd (RMSNorm: x / scale)
    act2<T> mean;        // [B, P]     mean over d of the input row
    act2<T> rstd;        // [B, P]     1 / √(var + ε), var the biased (1/d) variance
    act3<T> out;         // [B, P, d]  normalized · weight + bias: the next product's input
};

template <class T>
struct block_acts {
    act3<T> resid_pre;  // [B, P, d]          hook_resid_pre
    norm_acts<T> ln1;   //                    ln1.hook_normalized (+ mean, rstd, out)
    act4<T> q, k, v;    // [B, P, H, d_head]  attn.hook_q, hook_k, hook_v (biases added; k, v: KV heads)
    act4<T> rot_q, rot_k;  // [B, P, H | KV, d_head]  attn.hook_rot_q, hook_rot_k (rotary only; else empty)
    act4<T> scores;     // [B, H, P, P]       attn.hook_attn_scores: scaled, −inf above the diagonal
    act4<T> pattern;    // [B, H, P, P]       attn.hook_pattern: softmax over keys, 0 where masked
    act4<T> z;          // [B, P, H, d_head]  attn.hook_z = pattern · v per head
    act3<T> attn_out;   // [B, P, d]          hook_attn_out = z (heads side by side) W_O + b_O
    // MLP blocks only (empty when config.has_mlp() is false):
    act3<T> resid_mid;  // [B, P, d]          hook_resid_mid = resid_pre + attn_out
    norm_acts<T> ln2;   //                    ln2.hook_normalized (+ mean, rstd, out)
    act3<T> mlp_pre;    // [B, P, d_mlp]      mlp.hook_pre = ln2.out W_fc + b_fc (SwiGLU: the gate)
    act3<T> mlp_pre_linear;  // [B, P, d_mlp] mlp.hook_pre_linear: SwiGLU's up projection (else empty)
    act3<T> mlp_post;   // [B, P, d_mlp]      mlp.hook_post = gelu_tanh(mlp_pre)
    act3<T> mlp_out;    // [B, P, d]          hook_mlp_out = mlp_post W_proj + b_proj
    act3<T> resid_post; // [B, P, d]          hook_resid_post
};

template <class T>
struct forward_acts {
    std::size_t batch = 0, n_pos = 0;       // B, P
    std::vector<std::vector<int>> tokens;   // [B][P] the input ids
    act3<T> embed;                          // [B, P, d]      hook_embed = wte[token]
    act3<T> pos_embed;                      // [B, P, d]      hook_pos_embed = wpe[pos] (empty with rotary positions)
    std::vector<block_acts<T>> blocks;      // [n_layer]
    norm_acts<T> ln_final;                  //                ln_final.hook_normalized (+ mean, rstd, out)
    act3<T> logits;                         // [B, P, V]      logits
    act3<T> probs;                          // [B, P, V]      probs = softmax over V
};

// Checks the batch (at least one row, rows of one length 1 … n_positions, ids below
// vocab_size) and throws attn::error saying which row and token is wrong; also refuses an
// architecture the forward does not compute (model/train_parts' check_trainable).
void check_tokens(const architecture& config, const std::vector<std::vector<int>>& tokens);

// Which stages a traced forward keeps. The model-wide ones (hook_embed, hook_pos_embed,
// ln_final, logits, probs) are always kept; a block's stages are kept when asked for,
// otherwise computed in one block's buffers, reused layer after layer, and dropped (a
// block not asked for has empty buffers in forward_acts::blocks); its attention grids are
// then never held whole (query rows in scratch, checked finite there). The block's buffers
// are freed before the head's logits and probs are made.
struct stage_request {
    bool every_block = true;          // every stage of every block (--json, --npy, lessons)
    std::vector<std::size_t> blocks;  // every stage of these blocks (--layer L)
    bool every_pattern = false;       // attn.hook_pattern of every block (attn model heads)
    // The last block computed: the forward stops after it, with no ln_final, logits or
    // probs (empty), when a caller reads no later stage (the grader's head numbers).
    std::size_t through_block = static_cast<std::size_t>(-1);

    static stage_request all() { return {}; }
    static stage_request outputs() { return {false, {}, false}; }
    static stage_request block(std::size_t l) { return {false, {l}, false}; }
    static stage_request patterns() { return {false, {}, true}; }
    static stage_request through(std::size_t l) { return {true, {}, false, l}; }  // every block up to l, then stop
    bool keeps_block(std::size_t l) const;
    // Whether any of a model's n_layer blocks keeps its scores and pattern grids (the rest
    // compute them a few rows at a time and never hold a [B, H, P, P] grid).
    bool keeps_grids(std::size_t n_layer) const;
};

// The forward of `tokens` ([B][P]) through `p` (the training forward's arithmetic, no
// targets; the same bits), keeping the stages `request` asks for. Every stage is checked
// finite as it is computed (model/finite_check), kept or not.
template <class T>
forward_acts<T> trace_stages(const model_params<T>& p, const std::vector<std::vector<int>>& tokens,
                         const stage_request& request = stage_request::all());

// The kept buffer of one hook (from hook_names / find_hook, model/hooks.hpp) with its
// shape, or nullptr when the model has no such hook.
template <class T>
const T* hook_data(const forward_acts<T>& a, const hook_name& hook, std::vector<std::size_t>* shape);

}  // namespace attn::model
