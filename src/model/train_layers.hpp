// model/train_layers.hpp — the layers of a GPT-style decoder for training, each one's
// forward and backward side by side, in the style of llm.c: plain loops on contiguous
// row-major buffers the caller owns (no allocation here), every product through
// core/matmul. The forward of the model floor (model/traced_forward) keeps the same stages
// under TransformerLens names for tracing; these are the ones training runs 2,000 times.
//
// Shapes: B batch rows, T positions, C = d_model, NH heads of hs = C / NH, V vocabulary,
// N = B·T rows of activations. Every backward ADDS into its input gradients (dinp +=
// …), the way gradients meet at a residual stream, unless told grad_mode::write (a
// buffer's first contribution: written as 0 + gradient, the same bits without zeroing
// it first); parameter gradients are added, so the caller zeroes them once per step. Loops run in one fixed order, so a result
// never depends on the number of threads (core/matmul promises the same).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace attn::model::training {

// The threads the layers below use (1: the calling thread only). Work is split in
// blocks fixed by the sizes, never by the thread count: results are the same bits.
void set_threads(unsigned threads);

// How a backward hands over an input gradient: added to the buffer, or written into it.
enum class grad_mode { add, write };

// Calls task(i) for every i in [0, n) on those threads (each takes the next i), for the
// passes outside the layers (the optimiser, zeroing). A task must not depend on which
// thread runs it, nor on the other tasks.
void for_tasks(std::size_t n, const std::function<void(std::size_t)>& task);

// hook_embed + hook_pos_embed: out[b,t] = wte[tokens[b,t]] + wpe[t] (wpe null: rotary positions, none added).
template <class T>
void embed_forward(T* out, const std::int32_t* tokens, const T* wte, const T* wpe, std::size_t B,
                     std::size_t Tn, std::size_t C);  // out [N, C]
template <class T>
void embed_backward(T* dwte, T* dwpe, const T* dout, const std::int32_t* tokens, std::size_t B,
                      std::size_t Tn, std::size_t C);

// Layer norm over the last axis: out = (x − mean) · rstd · w + b, rstd = 1/√(var + eps)
// with the biased variance (PyTorch's). mean and rstd are kept for the backward, and
// (unless null) normalized [N, C] = (x − mean) · rstd, before the weight and bias.
template <class T>
void layer_norm_forward(T* out, T* mean, T* rstd, const T* inp, const T* w, const T* b, std::size_t N,
                       std::size_t C, double eps, T* normalized = nullptr);
template <class T>
void layer_norm_backward(T* dinp, T* dw, T* db, const T* dout, const T* inp, const T* w, const T* mean,
                        const T* rstd, std::size_t N, std::size_t C, grad_mode mode = grad_mode::add);

// A linear layer on row vectors: out = inp · w + b, w [IC, OC] (model_params' layout);
// b may be null (no bias).
template <class T>
void linear_forward(T* out, const T* inp, const T* w, const T* b, std::size_t N, std::size_t IC,
                    std::size_t OC);
// linear_forward, then sum = x + out (residual_forward) in the same pass, block by block
// of rows: x, sum [N, OC].
template <class T>
void linear_residual_forward(T* out, T* sum, const T* x, const T* inp, const T* w, const T* b, std::size_t N,
                             std::size_t IC, std::size_t OC);
template <class T>
void linear_backward(T* dinp, T* dw, T* db, const T* dout, const T* inp, const T* w, std::size_t N,
                     std::size_t IC, std::size_t OC, grad_mode mode = grad_mode::add);

// The unembedding: logits = x · Wᵀ with W [V, C] (wte when tied, else lm_head).
template <class T>
void unembed_forward(T* logits, const T* x, const T* w, std::size_t N, std::size_t C, std::size_t V);
template <class T>
void unembed_backward(T* dx, T* dw, const T* dlogits, const T* x, const T* w, std::size_t N, std::size_t C,
                      std::size_t V, grad_mode mode = grad_mode::add);

// Where attention's scores and pattern [B, NH, T, T] first hold a number that is not
// finite (an index into the grid; npos: nowhere), found as they were computed when the
// caller keeps neither grid (a traced forward's block nobody asked for): model/finite_check
// reports it as it reports a kept grid's. The mask's −∞ (key after query) is no fault.
struct grid_faults {
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    std::size_t scores = npos, pattern = npos;
};
// Notes in f the first fault of one head's query rows t0 … t0 + rows − 1 (keys 0 … t
// each), row r's scores at s + r·Tn and pattern at a + r·Tn; query row t0 is row
// `grid_row` of the grid's B·NH·T rows.
template <class T>
void note_grid_faults(grid_faults& f, const T* s, const T* a, std::size_t grid_row, std::size_t t0,
                      std::size_t rows, std::size_t Tn);
// The first fault of each grid over tasks that each noted their own.
grid_faults first_grid_faults(const std::vector<grid_faults>& tasks);

// Causal multi-head attention from the fused projection qkv [N, 3C] (q | k | v, head h
// at columns h·hs … inside each). scores [B, NH, T, T] are q·k/√hs with the future set
// to −∞ (hook_attn_scores), pattern = softmax of each row (hook_pattern, 0 above the
// diagonal), z [N, C] = pattern · v, heads side by side (hook_z). scores and pattern may
// both be null (not kept): each head's query rows then go through a few rows of scratch
// per thread, checked finite there into *unkept — the same numbers, never a [T, T] grid.
template <class T>
void attention_forward(T* z, T* scores, T* pattern, const T* qkv, std::size_t B, std::size_t Tn,
                       std::size_t C, std::size_t NH, grid_faults* unkept = nullptr);
// The core's attention backward (core/backward.hpp) for every batch row and head:
//   grad_weights = dz · vᵀ (dpattern), row_dot = Σ_k A dA,
//   grad_scores = A ⊙ (dA − row_dot) (dscores), grad_q = grad_scores · k / √hs,
//   grad_k = grad_scoresᵀ · q / √hs, grad_v = Aᵀ · dz; written into dqkv [N, 3C] (each
//   batch row's task zeroes its rows, then adds in the loops' order).
// dpattern and dscores [B, NH, T, T] are kept as stages (0 above the diagonal).
template <class T>
void attention_backward(T* dqkv, T* dscores, T* dpattern, const T* dz, const T* qkv, const T* pattern,
                        std::size_t B, std::size_t Tn, std::size_t C, std::size_t NH);

// GELU, tanh approximation (GPT-2's): 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))).
// The forward keeps each tanh in tanh_out for the backward (computing it twice was a
// quarter of a step).
template <class T>
void gelu_forward(T* out, T* tanh_out, const T* inp, std::size_t n);
template <class T>
void gelu_backward(T* dinp, const T* inp, const T* tanh_in, const T* dout, std::size_t n,
                   grad_mode mode = grad_mode::add);

// out = a + b (a residual connection); its backward hands dout to both sides.
template <class T>
void residual_forward(T* out, const T* a, const T* b, std::size_t n);
template <class T>
void residual_backward(T* da, T* db, const T* dout, std::size_t n, grad_mode mode = grad_mode::add);

// Softmax of each row of logits [N, V] into probs, and the cross-entropy of each row's
// target (targets[i] < 0: ignored, loss 0). Returns the mean over the rows not ignored
// (PyTorch's cross_entropy with ignore_index, reduction "mean"), 0 if all are ignored.
template <class T>
double crossentropy_forward(T* probs, T* losses, const T* logits, const std::int32_t* targets, std::size_t N,
                            std::size_t V);
// dlogits = (probs − onehot(target)) / count for the rows not ignored, 0 for the rest
// (written, not added: the loss is where the backward starts).
template <class T>
void crossentropy_softmax_backward(T* dlogits, const T* probs, const std::int32_t* targets, std::size_t N,
                                   std::size_t V);

}  // namespace attn::model::training
