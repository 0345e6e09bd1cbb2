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
};

#include "core/kernels_impl.hpp"

}  // namespace

kernel_set avx512_set() {
    kernel_set s;
    s.which = isa::avx512;
    s.name = "AVX-512";
    s.f32 = make_ops<avx512_f32, 8, 2>();
    s.f64 = make_ops<avx512_f64, 8, 2>();
    return s;
}

}  // namespace attn::kernels
#else
namespace attn::kernels {
kernel_set avx512_set() { return generic_set(); }  // not an x86-64 build: never chosen
}  // namespace attn::kernels
#endif
