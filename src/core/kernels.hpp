// core/kernels.hpp — the register-blocked product kernels behind attn::matmul and the
// fast forward, one set per instruction set, chosen once at run time from what the CPU
// reports (__builtin_cpu_supports), never from what the BLAS build knows about it.
//
// A product C [m, n] = alpha · A [m, k] · B [k, n] + beta · C is cut BLIS-style:
//   pack_b: a [kc, nc] block of B into strips of nr columns, each strip k-major
//           ([kc, nr] contiguous, the last strip zero-padded)  → [⌈nc/nr⌉, kc, nr]
//   pack_a: a [mc, kc] block of A into strips of mr rows, each k-major
//           ([kc, mr] contiguous, zero-padded)                 → [⌈mc/mr⌉, kc, mr]
//   block:  every mr × nr tile of C from one A strip and one B strip, the sum over
//           the kc values of k in registers in order p = 0, 1, …, kc − 1, then
//           C = alpha · sum + beta · C (beta = 0: C is not read).
// Every entry of C goes through the same arithmetic whatever tile it sits in (edge
// tiles go through a full tile in a scratch), so how C is split between threads never
// changes a bit of the result.
//
// The sets: generic (SSE2, which every x86-64 has: mul then add), avx2 (AVX2 + FMA),
// avx512 (AVX-512F). The same template (core/kernels_impl.hpp) is instantiated with a
// wider vector in each, in its own file compiled with its own flags (CMakeLists.txt);
// only the chosen set's code ever runs.
#pragma once

#include <cstddef>

#include "core/fast_softmax.hpp"

namespace attn::kernels {

enum class isa { generic, avx2, avx512 };

template <class T>
struct gemm_ops {
    std::size_t mr = 0, nr = 0;  // tile of C held in registers
    // a points at A(0, 0) of the block: element (i, p) is a[i·lda + p], or a[p·lda + i] when trans.
    void (*pack_a)(bool trans, std::size_t mc, std::size_t kc, const T* a, std::size_t lda, T* dst) = nullptr;
    // b points at B(0, 0) of the block: element (p, j) is b[p·ldb + j], or b[j·ldb + p] when trans.
    void (*pack_b)(bool trans, std::size_t kc, std::size_t nc, const T* b, std::size_t ldb, T* dst) = nullptr;
    void (*block)(std::size_t mc, std::size_t nc, std::size_t kc, const T* packed_a, const T* packed_b, T alpha,
                  T beta, T* c, std::size_t ldc) = nullptr;

    // block() with A unpacked: element (i, p) at a[i·lda + p].
    void (*block_rows)(std::size_t mc, std::size_t nc, std::size_t kc, const T* a, std::size_t lda,
                       const T* packed_b, T alpha, T beta, T* c, std::size_t ldc) = nullptr;
    // block_rows() with B unpacked too: element (p, j) at b[p·ldb + j]; nc a multiple of nr.
    void (*block_rows_b)(std::size_t mc, std::size_t nc, std::size_t kc, const T* a, std::size_t lda, const T* b,
                         std::size_t ldb, T alpha, T beta, T* c, std::size_t ldc) = nullptr;

    // One row of C (decoding's matrix-vector products) over one group of at most
    // row_group columns, C [1, cols] = alpha · a [kc] · B + beta · C, each entry's
    // arithmetic the tile's (so the bits of block_rows' row): row_packed reads B packed
    // as [kc, row_group] (zeros past cols), row_in_place reads row p of B at b + p·ldb.
    std::size_t row_group = 0;
    void (*row_packed)(std::size_t kc, std::size_t cols, const T* a, const T* packed_b, T alpha, T beta, T* c) = nullptr;
    void (*row_in_place)(std::size_t kc, std::size_t cols, const T* a, const T* b, std::size_t ldb, T alpha, T beta,
                         T* c) = nullptr;

    // The softmax pieces (core/kernels_softmax_impl.hpp), vectorised the same way.
    // softmax_row: fast_softmax_row's contract. row_scores: out = raw · inv_scale (+ bias,
    // blocked = fill), returns the row max and sets any_visible. exp_sum: x = e^(x − m) in
    // place, returns the sum. scale: x *= f. exp_in_place: e^x for x ≤ 0.
    bool (*softmax_row)(const T* raw, T* weights, std::size_t n, const softmax_row_inputs<T>& in) = nullptr;
    T (*row_scores)(const T* raw, T* out, std::size_t n, const softmax_row_inputs<T>& in, bool& any_visible) = nullptr;
    T (*exp_sum)(T* x, std::size_t n, T m) = nullptr;
    void (*scale)(T* x, std::size_t n, T f) = nullptr;
    void (*exp_in_place)(T* x, std::size_t n) = nullptr;
    // The benchmark's FMA-throughput loop: `steps` steps of flops_per_fma_step flops.
    T (*fma_loop)(std::size_t steps) = nullptr;
    std::size_t flops_per_fma_step = 0;
};

struct kernel_set {
    isa which = isa::generic;
    const char* name = "";  // "generic (SSE2)", "AVX2 + FMA", "AVX-512"
    gemm_ops<float> f32;
    gemm_ops<double> f64;
    template <class T>
    const gemm_ops<T>& ops() const {
        if constexpr (sizeof(T) == sizeof(float)) return f32; else return f64;
    }
};

// The best set this CPU runs (decided once), or the one forced below.
const kernel_set& active();
// The best set this CPU can run.
isa best_supported();
// Tests and the benchmark: use this set from now on (clamped to best_supported(), so
// nothing ever runs an instruction the CPU lacks). Returns the set in use.
const kernel_set& force(isa which);

// Strip counts: ⌈x / r⌉.
inline std::size_t strips(std::size_t x, std::size_t r) { return (x + r - 1) / r; }

// The sets, one per file (kernels_generic.cpp, kernels_avx2.cpp, kernels_avx512.cpp).
kernel_set generic_set();
kernel_set avx2_set();
kernel_set avx512_set();

}  // namespace attn::kernels
