// core/fast_blocks.hpp — the blocks of query rows the fast forwards are made of, on attn's
// kernels (core/kernels.hpp); used by core/fast_attention.cpp (the tracer's forward,
// every stage kept or not) and core/fast_fused.cpp (the model floor's attention).
//   kept_block:  Q_block Kᵀ into kept scores, the softmax into kept weights, W_block V
//   fused_block: per block of 256 keys, Q_block K_blockᵀ into a [rows, 256] scratch,
//                the online softmax (running max m and sum l; the output rescaled by
//                e^(m_old − m_new) when the max grows), out += P V_block; out /= l at the end
// Every entry is computed the same way whatever block or thread it falls in, so no
// result depends on the thread count or the block size.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "core/fast_softmax.hpp"
#include "core/kernels.hpp"

namespace attn::blocks {

constexpr std::size_t key_block = 256;  // keys per block of V (and of the fused scores)

// Stage times of a block (seconds), added to by each block.
struct times {
    double scores = 0, softmax = 0, output = 0;
};

// What every block of a call reads.
template <class T>
struct plan {
    const kernels::gemm_ops<T>& ops;
    std::size_t n_q, n_k, d_k, d_v;
    const T* q;                  // [n_q, d_k], row stride ldq
    std::size_t ldq;
    const T* packed_k;           // pack_kv: [⌈n_k/nr⌉, d_k, nr]
    const T* packed_v;           // pack_kv: [⌈n_k/256⌉, ⌈d_v/nr⌉, 256, nr]
    softmax_row_inputs<T> in;    // inv_scale and fill; bias and attend below are per row
    const T* bias = nullptr;     // [n_q, n_k] added to the scaled scores, or null
    const bool* attend = nullptr;  // [n_q, n_k] true = attend, or null
    bool causal = false;         // query i sees keys j ≤ i + (n_k − n_q)
    const T* v = nullptr;        // [n_k, d_v] row stride ldv, read in place when v_in_place (packed_v unused)
    std::size_t ldv = 0;
    std::size_t v_stride() const { return kernels::strips(d_v, ops.nr) * ops.nr * key_block; }
    softmax_row_inputs<T> row_inputs(std::size_t qi, std::size_t j0) const {
        softmax_row_inputs<T> r = in;
        r.bias = bias ? bias + qi * n_k + j0 : nullptr;
        r.attend = attend ? attend + qi * n_k + j0 : nullptr;
        return r;
    }
    // Keys of [j0, j0 + kv) that query qi sees under the causal mask (all without it).
    std::size_t visible(std::size_t qi, std::size_t j0, std::size_t kv) const {
        if (!causal) return kv;
        if (qi + n_k < n_q + j0) return 0;  // its last key, qi + n_k − n_q, is before j0 (or it sees none)
        const std::size_t seen = qi + n_k - n_q - j0 + 1;
        return seen < kv ? seen : kv;
    }
};

// K [n_k, d_k] (row stride ldk) and V [n_k, d_v] (ldv) into the strips every block reads.
template <class T>
void pack_kv(const kernels::gemm_ops<T>& ops, std::size_t n_k, std::size_t d_k, std::size_t d_v, const T* k,
             std::size_t ldk, const T* v, std::size_t ldv, std::vector<T>& packed_k, std::vector<T>& packed_v);

// V needs no packing when its rows are whole strips (d_v a multiple of nr, d_v = 64):
// the products read it in place (kernels block_rows_b) — same arithmetic, same bits.
template <class T>
bool v_in_place(const kernels::gemm_ops<T>& ops, std::size_t d_v) { return d_v % ops.nr == 0; }

// pack_kv in pieces threads can share: size the buffers once, then task i packs keys
// [256·i, 256·i + 256) of K and that block of V (⌈n_k/256⌉ tasks; same bits as pack_kv).
template <class T>
void size_packed_kv(const kernels::gemm_ops<T>& ops, std::size_t n_k, std::size_t d_k, std::size_t d_v,
                    std::vector<T>& packed_k, std::vector<T>& packed_v);
template <class T>
void pack_kv_task(const kernels::gemm_ops<T>& ops, std::size_t task, std::size_t n_k, std::size_t d_k, std::size_t d_v,
                  const T* k, std::size_t ldk, const T* v, std::size_t ldv, T* packed_k, T* packed_v);

// The work of one call on `slots` threads of the shared pool (core/fast_parallel.hpp), or
// on the caller alone when slots = 1 or the pool is busy: every thread pulls packing
// tasks pack(task, slot), task < n_pack, waits until all are packed, then pulls blocks
// block(blk, slot), blk < n_blocks (slot < slots names the thread's scratch). A thread
// that starts late finds the work done by the others; no result depends on who ran what.
void run_pack_then_blocks(unsigned slots, std::size_t n_pack, std::size_t n_blocks,
                          const std::function<void(std::size_t, std::size_t)>& pack,
                          const std::function<void(std::size_t, std::size_t)>& block);

// raw [n_q, n_k] (row stride n_k), keys [j0, j0 + kv) of every row: Q K_blockᵀ — the
// scores of one key block, for a call split by keys first (short queries).
template <class T>
void key_block_scores(const plan<T>& p, std::size_t j0, std::size_t kv, T* raw, times& t);

// Output only, split by keys (flash-decoding): keys [j0, j0 + kv) alone, for every row.
// s [n_q, 256] scratch (scores, then P); part = [3, n_q] (the block's row max m, its
// sum l of e^(score − m), 1 when a key was visible) then [n_q, d_v] (P V_block).
template <class T>
void key_block_partial(const plan<T>& p, std::size_t j0, std::size_t kv, T* s, T* part, times& t);
// Rows r0 … r0 + b from the n_parts partials (each part_stride values apart): the
// online softmax's merge — m = max m_j, out = Σ e^(m_j − m) o_j / Σ e^(m_j − m) l_j —
// in key order; flags as kept_block's.
template <class T>
void merge_key_blocks(const plan<T>& p, std::size_t r0, std::size_t b, const T* parts, std::size_t n_parts,
                      std::size_t part_stride, T* out, std::size_t ldo, unsigned char* flags);

// kept_block after its scores: the softmax of rows r0 … r0 + b of raw into w, then
// W_block V into out (same arguments as kept_block; raw already holds the scores).
template <class T>
void kept_block_after_scores(const plan<T>& p, std::size_t r0, std::size_t b, T* raw, T* w, T* out, std::size_t ldo,
                             unsigned char* flags, times& t);

// Rows r0 … r0 + b: raw and w [b, n_k] (row stride n_k), out [b, d_v] (row stride ldo);
// flags[i] = 1 when row i has no distribution (weights and output 0).
template <class T>
void kept_block(const plan<T>& p, std::size_t r0, std::size_t b, T* raw, T* w, T* out, std::size_t ldo,
                unsigned char* flags, times& t);

// Rows r0 … r0 + b fused: out [b, d_v] (row stride ldo), flags as above; lse [b] (null:
// not wanted) = m + log l per row, the log of the softmax's denominator (for a backward).
template <class T>
void fused_block(const plan<T>& p, std::size_t r0, std::size_t b, T* out, std::size_t ldo, unsigned char* flags,
                 T* lse, std::vector<T>& scratch, times& t);

}  // namespace attn::blocks
