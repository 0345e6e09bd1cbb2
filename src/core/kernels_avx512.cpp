// core/kernels_avx512.cpp — the product kernels for AVX-512F (Skylake-X, Ice Lake,
// Sapphire Rapids, Zen 4 and later), compiled with -mavx512f for this file only
// (CMakeLists.txt) and run only when the CPU reports it (core/kernels.cpp). The same
// template as the AVX2 file with 512-bit vectors. Tiles: float 8 × 32, double 8 × 16
// (16 of the 32 zmm registers accumulate, enough to cover the FMA latency). 8 rows
// rather than 12: query counts are multiples of 8 (64, 512, …), so no tile computes
// padding rows — 9–12% faster at n_q = 64 (cross-attention), the same at n = 512
// (issue 23, measured A/B in one run).
#include <cstddef>

#include "core/kernels.hpp"

#if defined(__x86_64__) && defined(__AVX512F__)
#include <immintrin.h>

// GCC 12 warns that the unpack and shuffle intrinsics' unused pass-through operand
// (_mm512_undefined_*) "may be used uninitialized" once they are inlined (GCC bug
// 105593, fixed in GCC 13): a false positive, silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace attn::kernels {
namespace {

struct avx512_f32 {
    using T = float;
    using reg = __m512;
    static constexpr std::size_t width = 16;
    static inline reg zero() { return _mm512_setzero_ps(); }
    static inline reg load(const T* p) { return _mm512_loadu_ps(p); }
    static inline void store(T* p, reg r) { _mm512_storeu_ps(p, r); }
    static inline reg set1(T x) { return _mm512_set1_ps(x); }
    static inline reg mul(reg a, reg b) { return _mm512_mul_ps(a, b); }
    static inline reg fma(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
    // r[i] lane l → r[l] lane i (16 × 16): 32-bit, 64-bit, 128-bit and 256-bit interleaves.
    static inline void transpose(reg (&r)[16]) {
        reg t[16];
        for (int i = 0; i < 16; i += 2) {
            t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
            t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
        }
        for (int i = 0; i < 16; i += 4)
            for (int j = 0; j < 2; ++j) {
                const __m512d a = _mm512_castps_pd(t[i + j]), b = _mm512_castps_pd(t[i + j + 2]);
                r[i + 2 * j] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
                r[i + 2 * j + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
            }
        for (int i = 0; i < 16; i += 8)
            for (int j = 0; j < 4; ++j) {
                t[i + j] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0x88);
                t[i + j + 4] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0xdd);
            }
        for (int j = 0; j < 8; ++j) {
            r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88);
            r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xdd);
        }
    }
};

struct avx512_f64 {
    using T = double;
    using reg = __m512d;
    static constexpr std::size_t width = 8;
    static inline reg zero() { return _mm512_setzero_pd(); }
    static inline reg load(const T* p) { return _mm512_loadu_pd(p); }
    static inline void store(T* p, reg r) { _mm512_storeu_pd(p, r); }
    static inline reg set1(T x) { return _mm512_set1_pd(x); }
    static inline reg mul(reg a, reg b) { return _mm512_mul_pd(a, b); }
    static inline reg fma(reg a, reg b, reg c) { return _mm512_fmadd_pd(a, b, c); }
    // r[i] lane l → r[l] lane i (8 × 8): 64-bit, 128-bit and 256-bit interleaves.
    static inline void transpose(reg (&r)[8]) {
        reg t[8];
        for (int i = 0; i < 8; i += 2) {
            t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
            t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
        }
        for (int i = 0; i < 8; i += 4)
            for (int j = 0; j < 2; ++j) {
                r[i + j] = _mm512_shuffle_f64x2(t[i + j], t[i + j + 2], 0x88);
                r[i + j + 2] = _mm512_shuffle_f64x2(t[i + j], t[i + j + 2], 0xdd);
            }
        for (int j = 0; j < 4; ++j) {
            t[j] = _mm512_shuffle_f64x2(r[j], r[j + 4], 0x88);
            t[j + 4] = _mm512_shuffle_f64x2(r[j], r[j + 4], 0xdd);
        }
        for (int j = 0; j < 8; ++j) r[j] = t[j];
    }
};

#include "core/kernels_impl.hpp"

// pack_b of a transposed B (Kᵀ: key rows of K become columns) in width × width blocks
// through registers: the scalar copy wrote one lane per store and cost a third of the
// product at n_q = 64 (issue 23). Same values as pack_b, so same bits downstream.
template <class V>
void pack_b_transposing(bool trans, std::size_t kc, std::size_t nc, const typename V::T* b, std::size_t ldb,
                        typename V::T* dst) {
    using T = typename V::T;
    constexpr std::size_t W = V::width, NR = 2 * W;
    if (!trans) return pack_b<T, NR>(false, kc, nc, b, ldb, dst);
    for (std::size_t j0 = 0; j0 < nc; j0 += NR, dst += kc * NR) {
        const std::size_t cols = nc - j0 < NR ? nc - j0 : NR;
        for (std::size_t g = 0; g < NR; g += W) {
            std::size_t p = 0;
            if (g + W <= cols)
                for (; p + W <= kc; p += W) {  // W keys × W values of k through registers
                    typename V::reg r[W];
                    for (std::size_t i = 0; i < W; ++i) r[i] = V::load(b + (j0 + g + i) * ldb + p);
                    V::transpose(r);
                    for (std::size_t i = 0; i < W; ++i) V::store(dst + (p + i) * NR + g, r[i]);
                }
            for (; p < kc; ++p)  // the rest of k, and a group cut by the edge (zero-padded)
                for (std::size_t i = 0; i < W; ++i)
                    dst[p * NR + g + i] = g + i < cols ? b[(j0 + g + i) * ldb + p] : T(0);
        }
    }
}

template <class V, std::size_t MR>
gemm_ops<typename V::T> make_avx512_ops() {
    gemm_ops<typename V::T> o = make_ops<V, MR, 2>();
    o.pack_b = &pack_b_transposing<V>;
    return o;
}

}  // namespace

kernel_set avx512_set() {
    kernel_set s;
    s.which = isa::avx512;
    s.name = "AVX-512";
    s.f32 = make_avx512_ops<avx512_f32, 8>();
    s.f64 = make_avx512_ops<avx512_f64, 8>();
    return s;
}

}  // namespace attn::kernels
#else
namespace attn::kernels {
kernel_set avx512_set() { return generic_set(); }  // not an x86-64 build: never chosen
}  // namespace attn::kernels
#endif
