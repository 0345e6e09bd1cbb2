// model/train_simd.hpp — training's float GELU, SwiGLU gate and attention (both families),
// forward and backward, in AVX-512 when core/kernels has chosen that set, giving the same
// bits as the code they stand in for: the scalar loops of model/train_layers and
// model/llama_layers (same operations in the same order, -ffp-contract=off: no fused
// multiply-adds there), the core/matmul calls of model/llama_attention (their fused
// chains), and e^x computed the way glibc's expf computes it (a 32-entry table of
// 2^(i/32) and a degree-3 polynomial in double, then rounded to float), so std::exp's
// bits, checked against std::exp in tests/model_train_simd_test.cpp. GELU's exp was a
// fifth of a step.
#pragma once

#include <cstddef>

namespace attn::model::training::simd {

// True when the calls below take the vector path (AVX-512 chosen).
bool available();

// Each call does the first whole vectors of 16 and returns how many elements it did (0
// without the vector path); the caller's scalar loop does the rest. A backward's `add`:
// false writes 0 + its gradient (the bits of adding into a zeroed buffer, none read).

// e^x of n floats into out, the bits of std::exp(float) on glibc.
std::size_t exp(float* out, const float* x, std::size_t n);

// out = 0.5 x (1 + tanh_out), tanh_out = 1 − 2 / (e^{2u} + 1), u = √(2/π)(x + 0.044715 x³).
std::size_t gelu_forward(float* out, float* tanh_out, const float* inp, std::size_t n);

// dinp += dout · (0.5 (1 + t) + 0.5 x (1 − t²) √(2/π)(1 + 3 · 0.044715 x²)), t = tanh_in.
std::size_t gelu_backward(float* dinp, const float* inp, const float* tanh_in, const float* dout, std::size_t n,
                          bool add);

// The SwiGLU gate of model/llama_layers: post = (g·σ(g))·up, σ(g) = 1 / (1 + e^−g).
std::size_t silu_gate_forward(float* post, const float* gate, const float* up, std::size_t n);

// Its backward: dgate += (dpost·up)·(σ·(1 + g·(1 − σ))), dup += dpost·(g·σ).
std::size_t silu_gate_backward(float* dgate, float* dup, const float* dpost, const float* gate, const float* up,
                               std::size_t n, bool add);

// model/train_layers' attention_forward / attention_backward for batch row b, every head,
// when the head fits whole vectors (hs 16, 32, 48 or 64) and the keys one vector (T ≤ 16):
// keys in lanes, every sum in the scalar loop's order. False (nothing done) otherwise.
bool attention_runs(std::size_t Tn, std::size_t hs);  // whether attention_forward/backward would run
bool attention_forward(float* z, float* scores, float* pattern, const float* qkv, std::size_t b, std::size_t Tn,
                       std::size_t C, std::size_t NH);
// attention_forward's head h of batch row b at any length (hs a multiple of 16): the keys'
// dot products 64 lanes at a time, each summing over d_head in the scalar loop's order.
bool attention_head_long(float* z, float* scores, float* pattern, const float* qkv, std::size_t b, std::size_t h,
                         std::size_t Tn, std::size_t C, std::size_t NH);
// attention_head_long in two steps, for a caller that keeps neither grid: the head's keys
// (this thread's transposed copy, valid until the thread's next call; null without the
// vector path), then its query rows t0 … t1 − 1, row t's scores at s + (t − t0)·Tn and
// pattern at a + (t − t0)·Tn: the same operations, so the same bits as attention_head_long.
const float* attention_keys(const float* qkv, std::size_t b, std::size_t h, std::size_t Tn, std::size_t C,
                            std::size_t NH, std::size_t& ld);
void attention_rows(float* z, float* s, float* a, const float* kt, std::size_t ld, const float* qkv, std::size_t b,
                    std::size_t h, std::size_t t0, std::size_t t1, std::size_t Tn, std::size_t C, std::size_t NH);
bool attention_backward(float* dqkv, float* dscores, float* dpattern, const float* dz, const float* qkv,
                        const float* pattern, std::size_t b, std::size_t Tn, std::size_t C, std::size_t NH);

// model/llama_attention's grouped-query attention for one (batch row, query head) when the
// keys fit one vector (1 ≤ T ≤ 16) and d_head is whole vectors (16 … 128): the products of
// its core/matmul calls formed entry by entry as the AVX-512 kernels form them (a fused
// multiply-add chain from 0 in order, then alpha · sum or fma(alpha, sum, C)), so the same
// bits, without the packing; the softmax rows are the caller's (gqa_rows).
bool gqa_fits(std::size_t Tn, std::size_t dh);  // whether gqa_forward/gqa_backward take these sizes
struct gqa_head {
    const float* q;       // [T, dh] rows ldq apart: the head's (rotated) queries
    const float* k;       // [T, dh] rows ldk apart: its group's (rotated) keys
    const float* v;       // [T, dh] rows ldk apart: its group's values
    std::size_t ldq, ldk, Tn, dh;
    float scale;          // 1 / √dh
};
struct gqa_outputs {
    float* z;             // [T, dh] rows ldq apart
    float* s;             // [T, T] scores
    float* a;             // [T, T] pattern
};
struct gqa_grads {
    const float* a;       // [T, T] the forward's pattern
    const float* dz;      // [T, dh] rows ldq apart
    float* dq;            // [T, dh] rows ldq apart, added to
    float* dk;            // [T, dh] rows ldk apart, added to
    float* dv;            // [T, dh] rows ldk apart, added to
    float* da;            // [T, T] dpattern, written
    float* ds;            // [T, T] dscores, written
};
struct gqa_rows {
    void (*softmax)(float* a, float* s, std::size_t last, std::size_t n);  // s's row → a, past last blocked
    void (*softmax_backward)(float* ds, float* da, const float* a, std::size_t last, std::size_t n);
};
// s = scale · q·kᵀ, a = softmax by rows, z = a·v.
void gqa_forward(const gqa_head& h, const gqa_outputs& o, const gqa_rows& rows);
// dA = dz·vᵀ, dS by rows, dq += scale · dS·k, dk += scale · dSᵀ·q, dv += Aᵀ·dz.
void gqa_backward(const gqa_head& h, const gqa_grads& g, const gqa_rows& rows);

// acc[i] += x[i] (a bias added to a row, a row added to a bias gradient).
std::size_t add(float* acc, const float* x, std::size_t n);

// out[i] = a[i] + b[i], a nullptr read as +0 (a residual's sum; 0 + dout, −0 made +0).
std::size_t plus(float* out, const float* a, const float* b, std::size_t n);

// acc[o] += Σ_r x[r·ld + o], r = 0 … N − 1 in order (a bias gradient), o < n in whole vectors.
std::size_t column_sums(float* acc, const float* x, std::size_t N, std::size_t ld, std::size_t n);

// Layer norm's parameter gradients over rows r = 0 … N − 1 in order (row r of d and x at
// r·ld, its m and s at mean[r], rstd[r]): columns o < n in whole vectors, as norm_param_grads.
std::size_t norm_param_grads_rows(float* dw, float* db, const float* d, const float* x, const float* mean,
                                  const float* rstd, std::size_t N, std::size_t ld, std::size_t n);

// Layer norm's parameter gradients from one row: x̂ = (x − m)·s, db += d, dw += x̂ · d.
std::size_t norm_param_grads(float* dw, float* db, const float* d, const float* x, float m, float s, std::size_t n);

// Layer norm's output of one row, o = ((x − m)·s)·w + b, and its backward's
// dx += ((w·d − dnorm_mean) − x̂·dnorm_norm_mean)·s once the row's two means are known.
std::size_t norm_out(float* o, const float* x, const float* w, const float* b, float m, float s, std::size_t n);
std::size_t norm_dx(float* dx, const float* d, const float* x, const float* w, float m, float s, float dnorm_mean,
                    float dnorm_norm_mean, std::size_t n, bool add);

// The norms' rows (model/train_simd_norms.cpp): rows [0, n) of [n, C] in blocks of 16
// whole rows, each row's sums over its columns in column order, one row per lane; each
// returns the rows it did (a multiple of 16), the caller's scalar loop does the rest.
// LayerNorm's forward (train_layers' layer_norm_forward; normalized, the x̂ before the
// weight, may be null) and its backward's dx (added to, or written: add false).
std::size_t layer_norm_rows(float* out, float* normalized, float* mean, float* rstd, const float* inp, const float* w,
                            const float* b, std::size_t n, std::size_t C, float eps);
std::size_t layer_norm_backward_rows(float* dx, const float* dout, const float* inp, const float* w, const float* mean,
                                     const float* rstd, std::size_t n, std::size_t C, bool add);
// RMSNorm's (llama_layers' rms_norm_forward, rms_norm_backward), and its weight gradient
// dw[i] += Σ_r dout[r, i]·(inp[r, i]·rstd[r]) over the first whole vectors of `cols`
// columns at dw (rows in order; returns the columns done).
std::size_t rms_norm_rows(float* out, float* normalized, float* rstd, const float* inp, const float* w, std::size_t n,
                          std::size_t C, float eps);
std::size_t rms_norm_backward_rows(float* dx, const float* dout, const float* inp, const float* w, const float* rstd,
                                   std::size_t n, std::size_t C, bool add);
std::size_t rms_norm_dw(float* dw, const float* dout, const float* inp, const float* rstd, std::size_t N,
                        std::size_t C, std::size_t cols);

// AdamW's update of one tensor (model/adamw.cpp's loop, its float constants).
struct adamw_consts {
    bool decayed;
    float decay, b1, one_minus_b1, b2, one_minus_b2, bc2_sqrt, eps, step_size;
};
std::size_t adamw(float* p, const float* g, float* m, float* v, std::size_t n, const adamw_consts& c);

}  // namespace attn::model::training::simd
