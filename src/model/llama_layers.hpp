// model/llama_layers.hpp — the layers the Llama family adds to model/train_layers (Llama,
// Mistral, SmolLM, TinyLlama, Qwen2): RMSNorm, rotary embeddings (both pairings), causal
// grouped-query attention, the SwiGLU MLP, and one decoding step against a KV cache. Each
// layer's forward and backward side by side, in llm.c's style and train_layers' rules:
// plain loops on contiguous row-major buffers the caller owns, every matrix product
// through core/matmul, float and double, work split over blocks fixed by the sizes (on
// training::set_threads' threads), so a result never depends on the thread count.
//
// Every backward ADDS into its gradients (dinp += …, dw += …): the caller zeroes them.
// The projections (q, k, v, o; optional biases, as Qwen2's q/k/v) are train_layers'
// linear_forward / linear_backward, weights [in, out]; the SwiGLU MLP below calls them.
// (Weights kept [out, in] as Hugging Face and GGUF store them: train_layers'
// unembed_forward / unembed_backward compute x · Wᵀ and its gradients.)
//
// Shapes: B batch rows, T positions, C = d_model, N = B·T rows, H query heads, KV
// key/value heads (H a multiple of KV), dh = d_head, F = d_mlp. Stage names are
// TransformerLens's (blocks.L. prefix omitted).
//
// One block, as these layers compose (training:: = model/train_layers; Hugging Face's
// nn.Linear weights [out, in] are transposed to [in, out] by the name mapping):
//   rms_norm_forward(a, ln1_norm, ln1_rstd, x, w_ln1)     ln1.hook_normalized, ln1.hook_scale = 1/rstd
//   training::linear_forward(q, a, W_q, b_q, N, C, H·dh)  attn.hook_q [B, T, H, dh] (k, v: KV heads)
//   rotary_forward(rq, q, table, B, T, H), (rk, k, …, KV) attn.hook_rot_q, attn.hook_rot_k
//   gqa_attention_forward(z, scores, pattern, rq, rk, v)  attn.hook_attn_scores, hook_pattern, hook_z
//   training::linear_forward(o, z, W_o, b_o, N, H·dh, C)  hook_attn_out; x + o: hook_resid_mid
//   rms_norm_forward(m, …, w_ln2); swiglu_forward(…, m)   ln2.*, mlp.hook_pre / pre_linear / post,
//                                                         hook_mlp_out; + residual: hook_resid_post
// The backward runs the same calls' _backward in reverse order. tests/python/llama_reference.py
// is an independent PyTorch forward of the whole model with every stage.
#pragma once

#include <cstddef>
#include <vector>

#include "model/train_layers.hpp"

namespace attn::model::llama {

// T* for a stage the caller may not keep: pass nullptr as it is (not deduced, so no cast).
template <class T>
struct stage_pointer {
    using type = T*;
};
template <class T>
using maybe_null = typename stage_pointer<T>::type;

// ---- RMSNorm ---------------------------------------------------------------------
// out = x · rstd · w, rstd = 1/√(mean(x²) + eps) per row.
//   out [N, C]; rstd [N] kept for the backward; normalized [N, C] = x · rstd (before the
//   weight: TransformerLens's ln1.hook_normalized), or null when not wanted.
//   TransformerLens's ln1.hook_scale [batch, pos, 1] is 1 / rstd = √(mean(x²) + eps).
template <class T>
void rms_norm_forward(T* out, maybe_null<T> normalized, T* rstd, const T* inp, const T* w, std::size_t N,
                      std::size_t C, double eps);
// dinp += rstd · (g − x̂ · mean(g ⊙ x̂)), g = dout ⊙ w, x̂ = x · rstd;  dw += Σ_rows dout ⊙ x̂.
// (grad_mode::write: dinp = 0 + …, model/train_layers.)
template <class T>
void rms_norm_backward(T* dinp, T* dw, const T* dout, const T* inp, const T* w, const T* rstd, std::size_t N,
                       std::size_t C, training::grad_mode mode = training::grad_mode::add);

// ---- rotary embeddings -------------------------------------------------------------
// Which columns of a head turn together:
//   adjacent   (x_2i, x_2i+1)      — core/rope (lesson 17), RoFormer, GGUF `llama`, llama2.c
//   half_split (x_i, x_i+dims/2)   — Hugging Face's rotate_half, GGUF `qwen2` / `gpt-neox`
// Pair i at position p turns by θ = p · theta^(−2i/dims) (core/rope's rope_frequency with
// d = dims, so adjacent pairing with dims = d_head gives core/rope's numbers):
//   a' = a cos θ − b sin θ,   b' = a sin θ + b cos θ      (a, b = the pair's two columns)
// Only the first `dims` columns of a head turn (partial rotary, dims ≤ d_head, even; the
// half-split pairs are within those dims, as Hugging Face's partial_rotary_factor); the
// rest pass through unchanged.
enum class rotary_pairing { adjacent, half_split };

struct rotary_spec {
    double theta = 10000.0;                          // the base
    std::size_t dims = 0;                            // columns that turn; 0 = all of d_head
    rotary_pairing pairing = rotary_pairing::half_split;
    // [dims/2] each pair's angle per position, when a checkpoint rescales them (Llama 3's
    // rope_scaling); empty: theta^(−2i/dims).
    std::vector<double> frequencies;
};

// cos and sin of every (position, pair), computed in double once per model.
struct rotary_table {
    std::size_t d_head = 0, dims = 0, positions = 0;
    rotary_pairing pairing = rotary_pairing::half_split;
    std::vector<double> cos, sin;  // [positions, dims/2]
};
// Positions 0 … positions − 1. Throws attn::shape_error when dims is odd or past d_head,
// theta is not a finite number > 1, or frequencies has not dims/2 finite numbers.
rotary_table make_rotary_table(const rotary_spec& spec, std::size_t d_head, std::size_t positions);

// x [B, T, heads, d_head] at positions pos0 … pos0 + T − 1 (pos0: where a KV cache stands)
// → out, same shape (hook_rot_q, hook_rot_k). out may be x (in place). Needs
// pos0 + T ≤ table.positions.
template <class T>
void rotary_forward(T* out, const T* x, const rotary_table& table, std::size_t B, std::size_t Tn,
                    std::size_t heads, std::size_t pos0 = 0);
// dinp += the rotation's transpose applied to dout (a turn by −θ); pass-through columns add dout.
template <class T>
void rotary_backward(T* dinp, const T* dout, const rotary_table& table, std::size_t B, std::size_t Tn,
                     std::size_t heads, std::size_t pos0 = 0, training::grad_mode mode = training::grad_mode::add);

// ---- causal grouped-query attention ------------------------------------------------
// q [B, T, H, dh] (rotated), k, v [B, T, KV, dh] (k rotated); query head h reads key/value
// head h / (H / KV) (core/grouped_query's kv_group_of; KV = H is multi-head, KV = 1
// multi-query). scores [B, H, T, T] = q·kᵀ / √dh with −∞ after the query
// (hook_attn_scores), pattern [B, H, T, T] = softmax of each row (hook_pattern, 0 after
// the query), z [B, T, H, dh] = pattern · v (hook_z). scores and pattern may be null (not
// kept: a few rows of scratch per thread instead, checked finite there into *unkept when
// given). train_layers' attention_forward with KV = H on the same q, k, v gives the same
// numbers (to rounding: products here go through core/matmul).
template <class T>
void gqa_attention_forward(T* z, maybe_null<T> scores, maybe_null<T> pattern, const T* q, const T* k, const T* v,
                           std::size_t B, std::size_t Tn, std::size_t H, std::size_t KV, std::size_t dh,
                           training::grid_faults* unkept = nullptr);
// The core's attention backward (core/backward.hpp) per head, as train_layers':
//   dpattern = dz · vᵀ, dscores = A ⊙ (dpattern − Σ_k A dpattern), dq += dscores · k / √dh,
//   dk += Σ_{h in group} dscoresᵀ · q / √dh, dv += Σ_{h in group} Aᵀ · dz
// dscores and dpattern [B, H, T, T] are written (0 after the query); dq [B, T, H, dh],
// dk, dv [B, T, KV, dh] are written too: each (batch row, group) task zeroes its slices,
// then its heads add in head order.
template <class T>
void gqa_attention_backward(T* dq, T* dk, T* dv, T* dscores, T* dpattern, const T* dz, const T* q, const T* k,
                            const T* v, const T* pattern, std::size_t B, std::size_t Tn, std::size_t H,
                            std::size_t KV, std::size_t dh);

// ---- one decoding step with a KV cache ---------------------------------------------
// The keys and values of positions 0 … t of every batch row, rotated keys as the
// forward's hook_rot_k; `length` positions filled (the same for every row). Each head's
// keys are stored as columns (the scores' product reads them as B [dh, n] in place) and
// its values as rows (B [n, dh]).
template <class T>
struct kv_cache {
    std::size_t capacity = 0, kv_heads = 0, d_head = 0, batch = 0, length = 0;
    std::vector<T> k;  // [B, KV, dh, capacity]
    std::vector<T> v;  // [B, KV, capacity, dh]
};
template <class T>
kv_cache<T> make_kv_cache(std::size_t B, std::size_t capacity, std::size_t KV, std::size_t dh);

// A decoding step's product or attention goes to the threads only when it reads at
// least this many bytes (weights, or cached keys and values): below it, a pool pass
// (waking the other threads and waiting for them: microseconds, far more on a loaded
// machine) costs more than the half of the work it saves. stories260K's largest, its
// unembedding, reads 128 KiB: its whole step stays on one thread.
constexpr std::size_t decode_parallel_bytes = std::size_t(512) << 10;

// The token at position t = cache.length for every batch row: q_t [B, H, dh], k_t, v_t
// [B, KV, dh] as projected (not rotated). Rotates q_t and k_t at position t, appends
// rotated k_t and v_t to the cache, and attends q_t to positions 0 … t:
//   rot_q [B, H, dh] (hook_rot_q of row t), scores and pattern [B, H, t + 1] (row t of
//   hook_attn_scores / hook_pattern without the masked future; either may be null), z [B, H, dh]
//   (row t of hook_z).
// Equals row t of rotary_forward + gqa_attention_forward on the whole sequence.
// Throws attn::shape_error when the cache is full, the table ends before t, or the
// sizes disagree with the cache's.
template <class T>
void gqa_decode_step(T* z, maybe_null<T> scores, maybe_null<T> pattern, T* rot_q, kv_cache<T>& cache,
                     const T* q_t, const T* k_t, const T* v_t, const rotary_table& table, std::size_t H);

// ---- the SwiGLU MLP ----------------------------------------------------------------
// gate = x W_gate + b_gate (mlp.hook_pre), up = x W_up + b_up (mlp.hook_pre_linear),
// post = silu(gate) ⊙ up (mlp.hook_post), out = post W_down + b_down (hook_mlp_out);
// silu(g) = g / (1 + e^−g). W_gate, W_up [C, F], W_down [F, C]; every bias may be null.
template <class T>
struct swiglu_weights {
    const T* w_gate = nullptr;  // [C, F]
    const T* b_gate = nullptr;  // [F] or null
    const T* w_up = nullptr;    // [C, F]
    const T* b_up = nullptr;    // [F] or null
    const T* w_down = nullptr;  // [F, C]
    const T* b_down = nullptr;  // [C] or null
};
template <class T>
struct swiglu_grads {  // the same shapes; a null bias gradient is skipped (and must be, for a null bias)
    T* w_gate = nullptr;
    T* b_gate = nullptr;
    T* w_up = nullptr;
    T* b_up = nullptr;
    T* w_down = nullptr;
    T* b_down = nullptr;
};
// out [N, C]; gate, up, post [N, F] kept for the backward.
template <class T>
void swiglu_forward(T* out, T* gate, T* up, T* post, const T* inp, const swiglu_weights<T>& w, std::size_t N,
                    std::size_t C, std::size_t F);
// scratch [3 · N · F] (dpost, dgate, dup; overwritten).
template <class T>
void swiglu_backward(T* dinp, const swiglu_grads<T>& g, T* scratch, const T* dout, const T* inp, const T* gate,
                     const T* up, const T* post, const swiglu_weights<T>& w, std::size_t N, std::size_t C,
                     std::size_t F);

// The elementwise middle, for a caller that projects gate and up itself:
// post = silu(gate) ⊙ up;  dgate += dpost ⊙ up ⊙ σ(g)(1 + g(1 − σ(g))),  dup += dpost ⊙ silu(g).
template <class T>
void silu_gate_forward(T* post, const T* gate, const T* up, std::size_t n);
template <class T>
void silu_gate_backward(T* dgate, T* dup, const T* dpost, const T* gate, const T* up, std::size_t n,
                        training::grad_mode mode = training::grad_mode::add);

}  // namespace attn::model::llama
