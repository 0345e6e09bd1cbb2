// model/quant_matvec.cpp — the products of model/quant_matvec.hpp: a scalar reference
// (dequantize a block, then the lanes), and AVX-512 and AVX2 kernels that dequantize in
// registers, four rows at a time (one activation load shared by four rows; each row its
// own lanes, so four independent chains of additions). The functions carry their own
// target attribute (this file is compiled for the baseline CPU); core/kernels' choice
// picks one.
#include "model/quant_matvec.hpp"

#include <cstring>

#include "core/internal_error.hpp"
#include "core/kernels.hpp"
#include "model/gguf_quant.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define ATTN_QUANT_SIMD 1
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC bug 105593, as in core/kernels_avx512.cpp
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#endif

namespace attn::model::quant {

namespace {

std::uint16_t u16_at(const unsigned char* p) {
    std::uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}

std::size_t block_elems(std::uint32_t type) { return type == 8 ? 32 : 256; }
std::size_t block_bytes(std::uint32_t type) { return type == 8 ? 34 : 144; }

// The lanes' sum: i + 8, i + 4, i + 2, then 0 + 1.
float reduce16(float* s) {
    for (int i = 0; i < 8; ++i) s[i] += s[i + 8];
    for (int i = 0; i < 4; ++i) s[i] += s[i + 4];
    for (int i = 0; i < 2; ++i) s[i] += s[i + 2];
    return s[0] + s[1];
}

#ifdef ATTN_QUANT_SIMD

// An f16 scale as float, exactly (F16C; every CPU with AVX-512 has it, AVX2's is checked).
__attribute__((target("f16c"))) inline float half_at(const unsigned char* p) {
    return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(u16_at(p))));
}

// ---- AVX-512: a row's 16 lanes in one register ----

__attribute__((target("avx512f,f16c"))) inline float sum16(__m512 a) {
    const __m256 lo = _mm512_castps512_ps256(a);
    const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1));
    const __m256 s8 = _mm256_add_ps(lo, hi);                                  // i + 8
    const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));  // i + 4
    const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));                  // i + 2
    return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));          // 0 + 1
}

template <int R>
__attribute__((target("avx512f,f16c"))) void q8_rows_avx512(const part& p, std::size_t r, const float* x, float* out) {
    __m512 acc[R];
    const unsigned char* row[R];
    for (int i = 0; i < R; ++i) acc[i] = _mm512_setzero_ps(), row[i] = p.data + (r + i) * p.row_bytes;
    for (std::size_t b = 0; b < p.k / 32; ++b) {
        const __m512 x0 = _mm512_loadu_ps(x + b * 32), x1 = _mm512_loadu_ps(x + b * 32 + 16);
        #pragma GCC unroll 4
        for (int i = 0; i < R; ++i) {
            const unsigned char* blk = row[i] + b * 34;
            _mm_prefetch(reinterpret_cast<const char*>(blk) + 1280, _MM_HINT_T0);  // 20 lines ahead of each row's stream
            const __m512 d = _mm512_set1_ps(half_at(blk));
            const __m512 q0 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 2))));
            const __m512 q1 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 18))));
            acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(_mm512_mul_ps(q0, d), x0));
            acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(_mm512_mul_ps(q1, d), x1));
        }
    }
    for (int i = 0; i < R; ++i) out[i] = sum16(acc[i]);
}

// 16 nibbles (low or high of 16 bytes) as floats.
__attribute__((target("avx512f,f16c"))) inline __m512 nibbles512(__m128i bytes) {
    return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(bytes));
}

template <int R>
__attribute__((target("avx512f,f16c"))) void q4k_rows_avx512(const part& p, std::size_t r, const float* x, float* out) {
    __m512 acc[R];
    const unsigned char* row[R];
    for (int i = 0; i < R; ++i) acc[i] = _mm512_setzero_ps(), row[i] = p.data + (r + i) * p.row_bytes;
    const __m128i low = _mm_set1_epi8(0x0F);
    for (std::size_t b = 0; b < p.k / 256; ++b) {
        for (int j = 0; j < 4; ++j) {  // 64 elements: sub-blocks 2j (low nibbles) and 2j + 1 (high)
            const float* xs = x + b * 256 + j * 64;
            const __m512 x0 = _mm512_loadu_ps(xs), x1 = _mm512_loadu_ps(xs + 16);
            const __m512 x2 = _mm512_loadu_ps(xs + 32), x3 = _mm512_loadu_ps(xs + 48);
            #pragma GCC unroll 4
            for (int i = 0; i < R; ++i) {
                const unsigned char* blk = row[i] + b * 144;
                _mm_prefetch(reinterpret_cast<const char*>(blk) + 576 + 64 * j, _MM_HINT_T0);
                const float d = half_at(blk), dmin = half_at(blk + 2);
                int sc1, m1, sc2, m2;
                scale_min_k4(2 * j, blk + 4, sc1, m1);
                scale_min_k4(2 * j + 1, blk + 4, sc2, m2);
                const __m512 d1 = _mm512_set1_ps(d * static_cast<float>(sc1)), mm1 = _mm512_set1_ps(dmin * static_cast<float>(m1));
                const __m512 d2 = _mm512_set1_ps(d * static_cast<float>(sc2)), mm2 = _mm512_set1_ps(dmin * static_cast<float>(m2));
                const unsigned char* q = blk + 16 + j * 32;
                const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
                const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 16));
                const __m512 w0 = _mm512_sub_ps(_mm512_mul_ps(d1, nibbles512(_mm_and_si128(a, low))), mm1);
                const __m512 w1 = _mm512_sub_ps(_mm512_mul_ps(d1, nibbles512(_mm_and_si128(c, low))), mm1);
                const __m512 w2 = _mm512_sub_ps(_mm512_mul_ps(d2, nibbles512(_mm_and_si128(_mm_srli_epi16(a, 4), low))), mm2);
                const __m512 w3 = _mm512_sub_ps(_mm512_mul_ps(d2, nibbles512(_mm_and_si128(_mm_srli_epi16(c, 4), low))), mm2);
                acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(w0, x0));
                acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(w1, x1));
                acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(w2, x2));
                acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(w3, x3));
            }
        }
    }
    for (int i = 0; i < R; ++i) out[i] = sum16(acc[i]);
}

// ---- AVX2: a row's lanes 0–7 and 8–15 in two registers ----

__attribute__((target("avx2,f16c"))) inline float sum8x2(__m256 lo, __m256 hi) {
    const __m256 s8 = _mm256_add_ps(lo, hi);
    const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
    const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

__attribute__((target("avx2,f16c"))) inline __m256 i8x8(const unsigned char* p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}

template <int R>
__attribute__((target("avx2,f16c"))) void q8_rows_avx2(const part& p, std::size_t r, const float* x, float* out) {
    __m256 lo[R], hi[R];
    const unsigned char* row[R];
    for (int i = 0; i < R; ++i) lo[i] = hi[i] = _mm256_setzero_ps(), row[i] = p.data + (r + i) * p.row_bytes;
    for (std::size_t b = 0; b < p.k / 32; ++b) {
        const float* xs = x + b * 32;
        const __m256 x0 = _mm256_loadu_ps(xs), x1 = _mm256_loadu_ps(xs + 8), x2 = _mm256_loadu_ps(xs + 16), x3 = _mm256_loadu_ps(xs + 24);
        #pragma GCC unroll 4
        for (int i = 0; i < R; ++i) {
            const unsigned char* blk = row[i] + b * 34;
            _mm_prefetch(reinterpret_cast<const char*>(blk) + 1280, _MM_HINT_T0);  // 20 lines ahead of each row's stream
            const __m256 d = _mm256_set1_ps(half_at(blk));
            lo[i] = _mm256_add_ps(lo[i], _mm256_mul_ps(_mm256_mul_ps(i8x8(blk + 2), d), x0));
            hi[i] = _mm256_add_ps(hi[i], _mm256_mul_ps(_mm256_mul_ps(i8x8(blk + 10), d), x1));
            lo[i] = _mm256_add_ps(lo[i], _mm256_mul_ps(_mm256_mul_ps(i8x8(blk + 18), d), x2));
            hi[i] = _mm256_add_ps(hi[i], _mm256_mul_ps(_mm256_mul_ps(i8x8(blk + 26), d), x3));
        }
    }
    for (int i = 0; i < R; ++i) out[i] = sum8x2(lo[i], hi[i]);
}

// 8 nibbles (of 8 bytes, already masked or shifted) as floats.
__attribute__((target("avx2,f16c"))) inline __m256 nibbles256(__m128i bytes) { return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes)); }

template <int R>
__attribute__((target("avx2,f16c"))) void q4k_rows_avx2(const part& p, std::size_t r, const float* x, float* out) {
    __m256 lo[R], hi[R];
    const unsigned char* row[R];
    for (int i = 0; i < R; ++i) lo[i] = hi[i] = _mm256_setzero_ps(), row[i] = p.data + (r + i) * p.row_bytes;
    const __m128i low = _mm_set1_epi8(0x0F);
    for (std::size_t b = 0; b < p.k / 256; ++b) {
        for (int j = 0; j < 4; ++j) {
            const float* xs = x + b * 256 + j * 64;
            #pragma GCC unroll 4
            for (int i = 0; i < R; ++i) {
                const unsigned char* blk = row[i] + b * 144;
                _mm_prefetch(reinterpret_cast<const char*>(blk) + 576 + 64 * j, _MM_HINT_T0);
                const float d = half_at(blk), dmin = half_at(blk + 2);
                int sc1, m1, sc2, m2;
                scale_min_k4(2 * j, blk + 4, sc1, m1);
                scale_min_k4(2 * j + 1, blk + 4, sc2, m2);
                const __m256 d1 = _mm256_set1_ps(d * static_cast<float>(sc1)), mm1 = _mm256_set1_ps(dmin * static_cast<float>(m1));
                const __m256 d2 = _mm256_set1_ps(d * static_cast<float>(sc2)), mm2 = _mm256_set1_ps(dmin * static_cast<float>(m2));
                const unsigned char* q = blk + 16 + j * 32;
                for (int h = 0; h < 8; ++h) {  // elements 8h … 8h + 7: low nibbles of bytes 8h …, then high of 8(h − 4) …
                    const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + 8 * (h % 4)));
                    const __m256 w = h < 4 ? _mm256_sub_ps(_mm256_mul_ps(d1, nibbles256(_mm_and_si128(v, low))), mm1)
                                           : _mm256_sub_ps(_mm256_mul_ps(d2, nibbles256(_mm_and_si128(_mm_srli_epi16(v, 4), low))), mm2);
                    __m256& acc = (h % 2 == 0) ? lo[i] : hi[i];
                    acc = _mm256_add_ps(acc, _mm256_mul_ps(w, _mm256_loadu_ps(xs + 8 * h)));
                }
            }
        }
    }
    for (int i = 0; i < R; ++i) out[i] = sum8x2(lo[i], hi[i]);
}

#endif  // ATTN_QUANT_SIMD

}  // namespace

bool has_kernel(std::uint32_t ggml_type) { return ggml_type == 8 || ggml_type == 12; }

std::size_t weight::rows() const {
    std::size_t n = 0;
    for (const part& p : parts) n += p.rows;
    return n;
}

void matvec_rows_reference(const part& p, std::size_t r0, std::size_t r1, const float* x, float* out) {
    if (!has_kernel(p.type)) throw internal_error("quant::matvec_rows: no kernel for this GGUF type");
    const std::size_t be = block_elems(p.type), bb = block_bytes(p.type);
    float w[256];
    for (std::size_t r = r0; r < r1; ++r) {
        float s[16] = {};
        const unsigned char* row = p.data + r * p.row_bytes;
        for (std::size_t b = 0; b < p.k / be; ++b) {
            dequantize_blocks(p.type, row + b * bb, 1, w);
            for (std::size_t j = 0; j < be; ++j) s[j % 16] += w[j] * x[b * be + j];
        }
        out[r - r0] = reduce16(s);
    }
}

void matvec_rows(const part& p, std::size_t r0, std::size_t r1, const float* x, float* out) {
#ifdef ATTN_QUANT_SIMD
    const kernels::isa which = kernels::active().which;
    static const bool f16c = [] {  // CPUID leaf 1, ECX: clang 14's __builtin_cpu_supports knows no "f16c"
        unsigned a = 0, b = 0, c = 0, d = 0;
        return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
    }();
    if (which != kernels::isa::generic && f16c) {
        using fn = void (*)(const part&, std::size_t, const float*, float*);
        const bool q8 = p.type == 8, wide = which == kernels::isa::avx512;
        if (!has_kernel(p.type)) throw internal_error("quant::matvec_rows: no kernel for this GGUF type");
        const fn four = q8 ? (wide ? q8_rows_avx512<4> : q8_rows_avx2<4>) : (wide ? q4k_rows_avx512<4> : q4k_rows_avx2<4>);
        const fn one = q8 ? (wide ? q8_rows_avx512<1> : q8_rows_avx2<1>) : (wide ? q4k_rows_avx512<1> : q4k_rows_avx2<1>);
        std::size_t r = r0;
        for (; r + 4 <= r1; r += 4) four(p, r, x, out + (r - r0));
        for (; r < r1; ++r) one(p, r, x, out + (r - r0));
        return;
    }
#endif
    matvec_rows_reference(p, r0, r1, x, out);
}

void dequantize_row(const part& p, std::size_t r, float* out) {
    dequantize_blocks(p.type, p.data + r * p.row_bytes, p.k / block_elems(p.type), out);
}

std::size_t first_nonfinite_block(const part& p) {
    const std::size_t per_row = p.k / block_elems(p.type), bb = block_bytes(p.type);
    const auto bad = [](std::uint16_t h) { return (h & 0x7C00u) == 0x7C00u; };
    for (std::size_t r = 0; r < p.rows; ++r)
        for (std::size_t b = 0; b < per_row; ++b) {
            const unsigned char* blk = p.data + r * p.row_bytes + b * bb;
            if (bad(u16_at(blk)) || (p.type == 12 && bad(u16_at(blk + 2)))) return r * per_row + b;
        }
    return p.rows * per_row;
}

const weight* weights::find(const std::string& name) const {
    for (const auto& [n, w] : by_name)
        if (n == name) return &w;
    return nullptr;
}

std::size_t weights::bytes() const {
    std::size_t n = 0;
    for (const auto& [name, w] : by_name)
        for (const part& p : w.parts) n += p.rows * p.row_bytes;
    return n;
}

}  // namespace attn::model::quant
