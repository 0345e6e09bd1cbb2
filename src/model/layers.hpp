// model/layers.hpp — the forward passes of a GPT block, one function per pass, on flat
// row-major buffers (llm.c's style: a pointer and its shape in a comment). The forward
// (model/gpt_forward.cpp) chains them; the backward is written pass for pass beside
// them. N = batch · pos rows throughout. Every product goes through core/matmul.
#pragma once

#include <cstddef>

namespace attn::model {

// out[n, :] = wte[token[n], :] and pos[n, :] = wpe[n mod P, :]. tokens: [N] ids.
template <class T>
void embed_forward(T* embed, T* pos_embed, const int* tokens, const T* wte, const T* wpe, std::size_t n,
                   std::size_t n_pos, std::size_t d);  // embed, pos_embed: [N, d]; wte: [V, d]; wpe: [≥P, d]

// Layer norm of each row of x: mean, rstd = 1/√(var + eps) (biased variance),
// normalized = (x − mean)·rstd, out = normalized·w + b.
template <class T>
void layer_norm_forward(T* normalized, T* mean, T* rstd, T* out, const T* x, const T* w, const T* b, std::size_t n,
                        std::size_t d, double eps);  // x, normalized, out: [N, d]; mean, rstd: [N]; w, b: [d]

// out = x · W[:, col0 : col0 + d_out] + bias[col0 : …]: a linear layer, or a slice of one
// (the fused q|k|v). W is [d_in, ld_w] ([in, out]); bias may be nullptr.
template <class T>
void linear_forward(T* out, const T* x, const T* w, const T* bias, std::size_t n, std::size_t d_in, std::size_t d_out,
                    std::size_t ld_w, std::size_t col0);  // x: [N, d_in]; out: [N, d_out]

// Causal multi-head attention of q, k, v ([B, P, H, dh] each): per (b, h)
// scores = q kᵀ / √dh with −inf where key > query; pattern = softmax over keys;
// z = pattern · v.
template <class T>
void attention_forward(T* scores, T* pattern, T* z, const T* q, const T* k, const T* v, std::size_t batch,
                       std::size_t n_pos, std::size_t heads, std::size_t d_head);  // scores, pattern: [B, H, P, P]; z: [B, P, H, dh]

// Softmax of each row of x (max subtracted first; −inf entries give 0). x, out: [N, c].
template <class T>
void softmax_rows_forward(T* out, const T* x, std::size_t n, std::size_t c);

// out = gelu_tanh(x) elementwise, n values.
template <class T>
void gelu_forward(T* out, const T* x, std::size_t n);

// out = a + b elementwise, n values.
template <class T>
void residual_forward(T* out, const T* a, const T* b, std::size_t n);

}  // namespace attn::model
