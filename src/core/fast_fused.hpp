// core/fast_fused.hpp — the model floor's attention forward: one head, output only,
// fused (the online softmax of lesson 16 over blocks of 256 keys, core/fast_blocks.hpp),
// so no [n_q, n_k] matrix ever exists; causal or not; on attn's kernels (AVX-512, AVX2 +
// FMA or generic, chosen from the CPU). Plain pointers with row strides, so a head can
// be read in place from a [T, 3·C] QKV buffer:
//   q: [n_q, d_k] row stride ldq   k: [n_k, d_k] ldk   v: [n_k, d_v] ldv
//   out: [n_q, d_v] row stride ldo
// Causal: query i sees keys j ≤ i + (n_k − n_q) (n_q = n_k: j ≤ i; with a KV cache the
// new queries are the last rows). The result never depends on the thread count.
#pragma once

#include <cstddef>
#include <optional>

namespace attn {

template <class T>
struct fused_options {
    bool causal = false;
    std::optional<double> scale_divisor;  // absent = √d_k
    T* lse = nullptr;                     // [n_q] if not null: log Σ_j e^(s_ij) per row (−inf if none), for a backward
    unsigned threads = 1;                 // > 1: blocks of rows on the shared pool (core/fast_parallel.hpp)
};

// A row that sees no key gets output 0 (and lse −inf), never NaN.
template <class T>
void fused_attention(std::size_t n_q, std::size_t n_k, std::size_t d_k, std::size_t d_v, const T* q, std::size_t ldq,
                     const T* k, std::size_t ldk, const T* v, std::size_t ldv, T* out, std::size_t ldo,
                     const fused_options<T>& options = {});

}  // namespace attn
