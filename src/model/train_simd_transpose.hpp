// model/train_simd_transpose.hpp — a 16 × 16 transpose of floats in AVX-512 registers, for
// the training kernels (model/train_simd*.cpp) that want 16 rows' columns one per lane.
// Include only where <immintrin.h> is, on x86-64; the function carries its own target.
#pragma once

#include <cstddef>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace attn::model::training::simd {

// out[k] = column k of the 16 rows r[0 … 15]: a 16 × 16 transpose in registers.
__attribute__((target("avx512f"))) inline void transpose16(__m512 (&r)[16]) {
    __m512 t[16];
#pragma GCC unroll 16
    for (std::size_t p = 0; p < 8; ++p) {  // per 128-bit lane: a0 b0 a1 b1 | a2 b2 a3 b3
        t[2 * p] = _mm512_unpacklo_ps(r[2 * p], r[2 * p + 1]);
        t[2 * p + 1] = _mm512_unpackhi_ps(r[2 * p], r[2 * p + 1]);
    }
    __m512 u[16];  // u[4q + k] lane L: column 4L + k of rows 4q … 4q + 3
#pragma GCC unroll 16
    for (std::size_t q = 0; q < 4; ++q) {
        const __m512d lo0 = _mm512_castps_pd(t[4 * q]), lo1 = _mm512_castps_pd(t[4 * q + 2]);
        const __m512d hi0 = _mm512_castps_pd(t[4 * q + 1]), hi1 = _mm512_castps_pd(t[4 * q + 3]);
        u[4 * q] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo0, lo1));
        u[4 * q + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo0, lo1));
        u[4 * q + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(hi0, hi1));
        u[4 * q + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(hi0, hi1));
    }
#pragma GCC unroll 16
    for (std::size_t k = 0; k < 4; ++k) {
        const __m512 v = _mm512_shuffle_f32x4(u[k], u[4 + k], 0x88), w = _mm512_shuffle_f32x4(u[k], u[4 + k], 0xDD);
        const __m512 x = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0x88), y = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0xDD);
        r[k] = _mm512_shuffle_f32x4(v, x, 0x88);
        r[4 + k] = _mm512_shuffle_f32x4(w, y, 0x88);
        r[8 + k] = _mm512_shuffle_f32x4(v, x, 0xDD);
        r[12 + k] = _mm512_shuffle_f32x4(w, y, 0xDD);
    }
}

}  // namespace attn::model::training::simd
#endif
