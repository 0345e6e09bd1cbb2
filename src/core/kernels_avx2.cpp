// core/kernels_avx2.cpp — the product kernels for AVX2 + FMA (Haswell, Zen and later),
// compiled with -mavx2 -mfma for this file only (CMakeLists.txt) and run only when the
// CPU reports both (core/kernels.cpp). Tiles: float 6 × 16, double 6 × 8 (12 of the 16
// ymm registers accumulate).
#include <cstddef>

#include "core/kernels.hpp"

#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

namespace attn::kernels {
namespace {

struct avx2_f32 {
    using T = float;
    using reg = __m256;
    static constexpr std::size_t width = 8;
    static inline reg zero() { return _mm256_setzero_ps(); }
    static inline reg load(const T* p) { return _mm256_loadu_ps(p); }
    static inline void store(T* p, reg r) { _mm256_storeu_ps(p, r); }
    static inline reg set1(T x) { return _mm256_set1_ps(x); }
    static inline reg mul(reg a, reg b) { return _mm256_mul_ps(a, b); }
    static inline reg fma(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
};

struct avx2_f64 {
    using T = double;
    using reg = __m256d;
    static constexpr std::size_t width = 4;
    static inline reg zero() { return _mm256_setzero_pd(); }
    static inline reg load(const T* p) { return _mm256_loadu_pd(p); }
    static inline void store(T* p, reg r) { _mm256_storeu_pd(p, r); }
    static inline reg set1(T x) { return _mm256_set1_pd(x); }
    static inline reg mul(reg a, reg b) { return _mm256_mul_pd(a, b); }
    static inline reg fma(reg a, reg b, reg c) { return _mm256_fmadd_pd(a, b, c); }
};

#include "core/kernels_impl.hpp"

}  // namespace

kernel_set avx2_set() {
    kernel_set s;
    s.which = isa::avx2;
    s.name = "AVX2 + FMA";
    s.f32 = make_ops<avx2_f32, 6, 2>();
    s.f64 = make_ops<avx2_f64, 6, 2>();
    return s;
}

}  // namespace attn::kernels
#else
namespace attn::kernels {
kernel_set avx2_set() { return generic_set(); }  // not an x86-64 build: never chosen
}  // namespace attn::kernels
#endif
