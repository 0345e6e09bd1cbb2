// model/train_simd.cpp — the AVX-512 GELU, SwiGLU gate and e^x of model/train_simd.hpp. The
// functions carry their own target attribute (this file is compiled for the baseline
// CPU); they run only when core/kernels chose the AVX-512 set.
#include "model/train_simd.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include <algorithm>
#include <type_traits>

#include "core/internal_error.hpp"
#include "core/kernels.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ATTN_TRAIN_SIMD 1
#include "model/train_simd_transpose.hpp"
// GCC 12 warns that the cast and extract intrinsics' unused pass-through operand "may be
// used uninitialized" once inlined (GCC bug 105593, as in core/kernels_avx512.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"  // the same bug, in the lambdas' inlined intrinsics
#endif
#endif

namespace attn::model::training::simd {

bool available() {
#ifdef ATTN_TRAIN_SIMD
    return kernels::active().which == kernels::isa::avx512;
#else
    return false;
#endif
}

#ifdef ATTN_TRAIN_SIMD
namespace {

// glibc's expf (sysdeps/ieee754/flt-32/e_expf.c, EXP2F_TABLE_BITS = 5): 2^(i/32) as
// doubles with i·2^47 taken off their bits, so adding k << 47 scales by 2^(k/32).
struct exp_table {
    alignas(64) std::uint64_t t[32];
    exp_table() {
        for (int i = 0; i < 32; ++i) {
            const double v = static_cast<double>(std::exp2(static_cast<long double>(i) / 32));
            std::memcpy(&t[i], &v, sizeof v);
            t[i] -= static_cast<std::uint64_t>(i) << 47;
        }
    }
};
const exp_table table;

// e^x of 8 floats in double, before the rounding to float (x in glibc's normal range).
__attribute__((target("avx512f"))) inline __m512d exp_normal(__m256 x) {
    const __m512d xd = _mm512_cvtps_pd(x);
    const __m512d shift = _mm512_set1_pd(0x1.8p+52);                // rounds to an integer
    const __m512d z = _mm512_mul_pd(_mm512_set1_pd(0x1.71547652b82fep+0 * 32), xd);  // x · 32/ln 2
    __m512d kd = _mm512_add_pd(z, shift);
    const __m512i ki = _mm512_castpd_si512(kd);
    kd = _mm512_sub_pd(kd, shift);
    const __m512d r = _mm512_sub_pd(z, kd);  // z − k, |r| ≤ 1/2
    // table.t[ki & 31] by two two-register permutes and a blend on bit 4 (not a gather).
    const __m512i* tv = reinterpret_cast<const __m512i*>(table.t);
    const __m512i lo = _mm512_permutex2var_epi64(_mm512_loadu_si512(tv), ki, _mm512_loadu_si512(tv + 1));
    const __m512i hi = _mm512_permutex2var_epi64(_mm512_loadu_si512(tv + 2), ki, _mm512_loadu_si512(tv + 3));
    __m512i t = _mm512_mask_blend_epi64(_mm512_test_epi64_mask(ki, _mm512_set1_epi64(16)), lo, hi);
    t = _mm512_add_epi64(t, _mm512_slli_epi64(ki, 47));
    const __m512d s = _mm512_castsi512_pd(t);  // 2^(k/32)
    // glibc's FMA build: z = C0 r + C1, y = C2 r + 1, y = z r² + y, each fused.
    const __m512d c0 = _mm512_set1_pd(0x1.c6af84b912394p-5 / 32 / 32 / 32);
    const __m512d c1 = _mm512_set1_pd(0x1.ebfce50fac4f3p-3 / 32 / 32);
    const __m512d c2 = _mm512_set1_pd(0x1.62e42ff0c52d6p-1 / 32);
    const __m512d p = _mm512_fmadd_pd(c0, r, c1);
    const __m512d r2 = _mm512_mul_pd(r, r);
    __m512d y = _mm512_fmadd_pd(c2, r, _mm512_set1_pd(1.0));
    y = _mm512_fmadd_pd(p, r2, y);
    return _mm512_mul_pd(y, s);
}

// e^x of 16 floats: glibc's special cases (overflow to ∞, underflow to 0, NaN) blended in.
__attribute__((target("avx512f"))) inline __m512 exp16(__m512 x) {
    const __m256 lo = _mm512_castps512_ps256(x);
    const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1));
    const __m256 elo = _mm512_cvtpd_ps(exp_normal(lo)), ehi = _mm512_cvtpd_ps(exp_normal(hi));
    __m512 e = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(elo)),
                                                   _mm256_castps_pd(ehi), 1));
    const __mmask16 over = _mm512_cmp_ps_mask(x, _mm512_set1_ps(0x1.62e42ep6f), _CMP_GT_OQ);
    const __mmask16 under = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-0x1.9fe368p6f), _CMP_LT_OQ);
    const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    e = _mm512_mask_mov_ps(e, over, _mm512_set1_ps(INFINITY));
    e = _mm512_mask_mov_ps(e, under, _mm512_setzero_ps());
    return _mm512_mask_mov_ps(e, nan, _mm512_add_ps(x, x));
}

// Whole vectors only: the caller's scalar loop does the rest, so the constants stay its own.
__attribute__((target("avx512f"))) std::size_t exp_avx512(float* out, const float* x, std::size_t n) {
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, exp16(_mm512_loadu_ps(x + i)));
    return i;
}

// The scalar loop's operations, 16 at a time (train_layers.cpp: gelu_forward, fast_tanh),
// with its constants: static_cast<float> of the same double literals.
__attribute__((target("avx512f"))) std::size_t gelu_avx512(float* out, float* tanh_out, const float* inp,
                                                           std::size_t n) {
    const __m512 c = _mm512_set1_ps(static_cast<float>(0.7978845608028654));
    const __m512 k = _mm512_set1_ps(static_cast<float>(0.044715));
    const __m512 one = _mm512_set1_ps(1.0f), two = _mm512_set1_ps(2.0f), half = _mm512_set1_ps(0.5f);
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 x = _mm512_loadu_ps(inp + i);
        const __m512 cube = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(k, x), x), x);  // ((0.044715 x) x) x
        const __m512 u = _mm512_mul_ps(c, _mm512_add_ps(x, cube));
        const __m512 e = exp16(_mm512_mul_ps(two, u));
        const __m512 th = _mm512_sub_ps(one, _mm512_div_ps(two, _mm512_add_ps(e, one)));
        _mm512_storeu_ps(tanh_out + i, th);
        _mm512_storeu_ps(out + i, _mm512_mul_ps(_mm512_mul_ps(half, x), _mm512_add_ps(one, th)));
    }
    return i;
}

// The SwiGLU gate (model/llama_layers.cpp: silu_gate_forward), its scalar operations 16
// at a time: σ = 1 / (1 + e^−g), post = (g·σ)·up.
__attribute__((target("avx512f"))) std::size_t silu_gate_avx512(float* post, const float* gate, const float* up,
                                                                std::size_t n) {
    const __m512 one = _mm512_set1_ps(1.0f);
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 g = _mm512_loadu_ps(gate + i);
        const __m512 sig = _mm512_div_ps(one, _mm512_add_ps(one, exp16(_mm512_sub_ps(_mm512_setzero_ps(), g))));
        _mm512_storeu_ps(post + i, _mm512_mul_ps(_mm512_mul_ps(g, sig), _mm512_loadu_ps(up + i)));
    }
    return i;
}

// Its backward (silu_gate_backward): dgate += (dpost·up)·(σ·(1 + g·(1 − σ))), dup += dpost·(g·σ).
__attribute__((target("avx512f"))) std::size_t silu_gate_backward_avx512(float* dgate, float* dup, const float* dpost,
                                                                         const float* gate, const float* up,
                                                                         std::size_t n, bool add) {
    const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 g = _mm512_loadu_ps(gate + i), d = _mm512_loadu_ps(dpost + i);
        const __m512 sig = _mm512_div_ps(one, _mm512_add_ps(one, exp16(_mm512_sub_ps(_mm512_setzero_ps(), g))));
        const __m512 slope = _mm512_mul_ps(sig, _mm512_add_ps(one, _mm512_mul_ps(g, _mm512_sub_ps(one, sig))));
        const __m512 dg = _mm512_mul_ps(_mm512_mul_ps(d, _mm512_loadu_ps(up + i)), slope);
        _mm512_storeu_ps(dgate + i, _mm512_add_ps(add ? _mm512_loadu_ps(dgate + i) : zero, dg));
        _mm512_storeu_ps(dup + i, _mm512_add_ps(add ? _mm512_loadu_ps(dup + i) : zero, _mm512_mul_ps(d, _mm512_mul_ps(g, sig))));
    }
    return i;
}

// dinp += dout · GELU'(x) from the kept tanh, the scalar loop's operations 16 at a time.
__attribute__((target("avx512f"))) std::size_t gelu_backward_avx512(float* dinp, const float* inp, const float* tanh_in,
                                                                    const float* dout, std::size_t n, bool add) {
    const __m512 c = _mm512_set1_ps(static_cast<float>(0.7978845608028654));
    const __m512 k3 = _mm512_set1_ps(3.0f * static_cast<float>(0.044715));  // T(3) · T(0.044715), folded in float
    const __m512 one = _mm512_set1_ps(1.0f), half = _mm512_set1_ps(0.5f);
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 x = _mm512_loadu_ps(inp + i), th = _mm512_loadu_ps(tanh_in + i);
        const __m512 sech2 = _mm512_sub_ps(one, _mm512_mul_ps(th, th));
        const __m512 du = _mm512_mul_ps(c, _mm512_add_ps(one, _mm512_mul_ps(_mm512_mul_ps(k3, x), x)));
        const __m512 left = _mm512_mul_ps(half, _mm512_add_ps(one, th));
        const __m512 right = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(half, x), sech2), du);
        const __m512 g = _mm512_mul_ps(_mm512_loadu_ps(dout + i), _mm512_add_ps(left, right));
        _mm512_storeu_ps(dinp + i, _mm512_add_ps(add ? _mm512_loadu_ps(dinp + i) : _mm512_setzero_ps(), g));
    }
    return i;
}

// ---- attention of one batch row, every head: queries in order, keys and values in lanes

// The sizes the vector attention takes: a head of 16, 32, 48 or 64 values (whole
// vectors), at most 16 positions (one lane per key).
bool attention_fits(std::size_t Tn, std::size_t hs) { return Tn <= 16 && hs % 16 == 0 && hs > 0 && hs <= 64; }

// dst [hs][16]: dst[i][u] = rows[u·stride + i] for u < Tn, 0 in the other lanes (hs a
// multiple of 16: 16 × 16 blocks transposed in registers).
__attribute__((target("avx512f"))) void transpose_rows(float (&dst)[64][16], const float* rows, std::size_t stride,
                                                        std::size_t Tn, std::size_t hs) {
    for (std::size_t j = 0; j < hs; j += 16) {
        __m512 b[16];
#pragma GCC unroll 16
        for (std::size_t u = 0; u < 16; ++u) b[u] = u < Tn ? _mm512_loadu_ps(rows + u * stride + j) : _mm512_setzero_ps();
        transpose16(b);
#pragma GCC unroll 16
        for (std::size_t k = 0; k < 16; ++k) _mm512_store_ps(dst[j + k], b[k]);
    }
}

// Runs f(std::integral_constant<R>, r0) over rows 0 … count − 1, four at a time, then the rest.
template <class F>
inline void row_groups(std::size_t count, F&& f) {
    std::size_t r0 = 0;
    for (; r0 + 4 <= count; r0 += 4) f(std::integral_constant<std::size_t, 4>{}, r0);
    switch (count - r0) {
        case 3: return f(std::integral_constant<std::size_t, 3>{}, r0);
        case 2: return f(std::integral_constant<std::size_t, 2>{}, r0);
        case 1: return f(std::integral_constant<std::size_t, 1>{}, r0);
        default: return;
    }
}

// lanes_r[u] = Σ_i x_r[i] · cols[i][u], i in order from 0 (the scalar dot's sum, one per
// lane), for R rows x_r = x + r·ld side by side: independent chains that overlap.
template <std::size_t R>
__attribute__((target("avx512f"))) inline void dots_rows(__m512 (&acc)[R], const float* x, std::size_t ld,
                                                          const float (&cols)[64][16], std::size_t hs) {
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
    for (std::size_t i = 0; i < hs; ++i) {
        const __m512 col = _mm512_load_ps(cols[i]);
#pragma GCC unroll 4
        for (std::size_t r = 0; r < R; ++r) acc[r] = _mm512_add_ps(acc[r], _mm512_mul_ps(_mm512_set1_ps(x[r * ld + i]), col));
    }
}

// Weighted sums of rows in the scalar loops' order, R outputs side by side:
//   out_r (+)= Σ_k w[r·w_r + k·w_u] · x_k    (x_k at x + k·ldx; from out_r when add, else from 0)
// each product rounded, then added, k ascending over the output's range: k = 0 … r (causal,
// a query's keys) or k = r … n − 1 (not causal: a key's queries). Rows r0 … r0 + R − 1.
struct row_sums {
    float* out;
    std::size_t out_ld;
    const float* w;
    std::size_t w_r, w_u;
    const float* x;
    std::size_t ldx, n;
    bool causal, add;
};

template <std::size_t R, std::size_t V>
__attribute__((target("avx512f"))) inline void row_sums_tile(const row_sums& p, std::size_t r0, std::size_t c) {
    __m512 acc[R][V];
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (std::size_t j = 0; j < V; ++j)
            acc[r][j] = p.add ? _mm512_loadu_ps(p.out + (r0 + r) * p.out_ld + c + 16 * j) : _mm512_setzero_ps();
    const auto step = [&](std::size_t k, std::size_t r) __attribute__((always_inline, target("avx512f"))) {
        const __m512 wk = _mm512_set1_ps(p.w[(r0 + r) * p.w_r + k * p.w_u]);
#pragma GCC unroll 4
        for (std::size_t j = 0; j < V; ++j)
            acc[r][j] = _mm512_add_ps(acc[r][j], _mm512_mul_ps(wk, _mm512_loadu_ps(p.x + k * p.ldx + c + 16 * j)));
    };
    // Every row's range holds [k_all, k_end) whole; the rest is in some rows' ranges only.
    const std::size_t k_all = p.causal ? 0 : r0 + R - 1, k_end = p.causal ? r0 + 1 : p.n;
    if (!p.causal)
        for (std::size_t k = r0; k < k_all; ++k)
#pragma GCC unroll 4
            for (std::size_t r = 0; r < R; ++r)
                if (k >= r0 + r) step(k, r);
    for (std::size_t k = k_all; k < k_end; ++k)
#pragma GCC unroll 4
        for (std::size_t r = 0; r < R; ++r) step(k, r);
    if (p.causal)
        for (std::size_t k = k_end; k < r0 + R; ++k)
#pragma GCC unroll 4
            for (std::size_t r = 0; r < R; ++r)
                if (k <= r0 + r) step(k, r);
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (std::size_t j = 0; j < V; ++j) _mm512_storeu_ps(p.out + (r0 + r) * p.out_ld + c + 16 * j, acc[r][j]);
}

// Rows 0 … count − 1 of hs columns (16, 32, 48 or 64).
__attribute__((target("avx512f"))) void row_sums_all(const row_sums& p, std::size_t count, std::size_t hs) {
    row_groups(count, [&](auto rows, std::size_t r0) __attribute__((target("avx512f"))) {
        constexpr std::size_t R = decltype(rows)::value;
        switch (hs / 16) {
            case 4: return row_sums_tile<R, 4>(p, r0, 0);
            case 3: return row_sums_tile<R, 3>(p, r0, 0);
            case 2: return row_sums_tile<R, 2>(p, r0, 0);
            default: return row_sums_tile<R, 1>(p, r0, 0);
        }
    });
}

__attribute__((target("avx512f"))) void attention_head_forward(float* z, float* scores, float* pattern, const float* qkv,
                                                               std::size_t Tn, std::size_t C, std::size_t hs) {
    const std::size_t C3 = 3 * C;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hs));
    alignas(64) float kt[64][16];  // [hs, 16] the head's keys, one per lane
    transpose_rows(kt, qkv + C, C3, Tn, hs);
    alignas(64) float a[16][16];   // [T, 16] the pattern's rows, 0 past t
    const __mmask16 row_mask = static_cast<__mmask16>((1u << Tn) - 1);
    row_groups(Tn, [&](auto rows, std::size_t t0) __attribute__((target("avx512f"))) {
        constexpr std::size_t R = decltype(rows)::value;
        __m512 dot[R];
        dots_rows<R>(dot, qkv + t0 * C3, C3, kt, hs);
#pragma GCC unroll 4
        for (std::size_t r = 0; r < R; ++r) {
            const std::size_t t = t0 + r;
            const __mmask16 seen = static_cast<__mmask16>((2u << t) - 1);  // keys 0 … t
            const __m512 s = _mm512_mul_ps(dot[r], _mm512_set1_ps(scale));
            float* srow = scores + t * Tn;  // [T]
            _mm512_mask_storeu_ps(srow, row_mask, _mm512_mask_mov_ps(_mm512_set1_ps(-INFINITY), seen, s));
            float maxv = -INFINITY;
            for (std::size_t u = 0; u <= t; ++u)
                if (srow[u] > maxv) maxv = srow[u];
            alignas(64) float e[16];
            _mm512_store_ps(e, exp16(_mm512_sub_ps(s, _mm512_set1_ps(maxv))));
            float sum = 0;
            for (std::size_t u = 0; u <= t; ++u) sum += e[u];
            _mm512_store_ps(a[t], _mm512_maskz_mov_ps(seen, _mm512_div_ps(_mm512_load_ps(e), _mm512_set1_ps(sum))));
            _mm512_mask_storeu_ps(pattern + t * Tn, row_mask, _mm512_load_ps(a[t]));
        }
    });
    row_sums_all({z, C, &a[0][0], 16, 1, qkv + 2 * C, C3, Tn, true, false}, Tn, hs);  // z_t = Σ_u a[t][u] v_u
}

// ---- one head of one batch row at any length: keys in lanes, 64 at a time ----------

// kt [hs, ld]: kt[i·ld + u] = rows[u·stride + i] for u < Tn, 0 up to ld (a multiple of 64).
void transpose_keys(float* kt, std::size_t ld, const float* rows, std::size_t stride, std::size_t Tn, std::size_t hs) {
    for (std::size_t i = 0; i < hs; ++i) {
        for (std::size_t u = 0; u < Tn; ++u) kt[i * ld + u] = rows[u * stride + i];
        for (std::size_t u = Tn; u < ld; ++u) kt[i * ld + u] = 0.0f;
    }
}

// s[u] = (Σ_i q[i] · kt[i][u]) · scale for u < n (rounded up to whole vectors of 16; s has
// room), i in order for each u: the scalar loop's dot product, 64 keys side by side.
__attribute__((target("avx512f"))) void score_row(float* s, const float* q, const float* kt, std::size_t ld,
                                                   std::size_t n, std::size_t hs, float scale) {
    const __m512 vs = _mm512_set1_ps(scale);
    std::size_t u = 0;
    for (; u < n; u += 64) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (std::size_t i = 0; i < hs; ++i) {
            const __m512 qi = _mm512_set1_ps(q[i]);
            const float* k = kt + i * ld + u;
            a0 = _mm512_add_ps(a0, _mm512_mul_ps(qi, _mm512_loadu_ps(k)));
            a1 = _mm512_add_ps(a1, _mm512_mul_ps(qi, _mm512_loadu_ps(k + 16)));
            a2 = _mm512_add_ps(a2, _mm512_mul_ps(qi, _mm512_loadu_ps(k + 32)));
            a3 = _mm512_add_ps(a3, _mm512_mul_ps(qi, _mm512_loadu_ps(k + 48)));
        }
        _mm512_storeu_ps(s + u, _mm512_mul_ps(a0, vs));
        _mm512_storeu_ps(s + u + 16, _mm512_mul_ps(a1, vs));
        _mm512_storeu_ps(s + u + 32, _mm512_mul_ps(a2, vs));
        _mm512_storeu_ps(s + u + 48, _mm512_mul_ps(a3, vs));
    }
}

// z [hs] = Σ_u a[u] · v_u, u = 0 … n − 1 in order (v_u at v + u·stride), 16 values a vector.
__attribute__((target("avx512f"))) void weighted_values(float* z, const float* a, const float* v, std::size_t stride,
                                                         std::size_t n, std::size_t hs) {
    for (std::size_t c = 0; c < hs; c += 64) {
        const std::size_t w = std::min<std::size_t>(64, hs - c) / 16;  // vectors in this pass
        __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
        for (std::size_t u = 0; u < n; ++u) {
            const __m512 au = _mm512_set1_ps(a[u]);
            const float* vu = v + u * stride + c;
            for (std::size_t j = 0; j < w; ++j) acc[j] = _mm512_add_ps(acc[j], _mm512_mul_ps(au, _mm512_loadu_ps(vu + 16 * j)));
        }
        for (std::size_t j = 0; j < w; ++j) _mm512_storeu_ps(z + c + 16 * j, acc[j]);
    }
}

// The head's keys transposed for score_row: this thread's kt [hs, ld], ld = Tn rounded up
// to 64, valid until the thread's next call.
const float* head_keys_long(const float* qkv, std::size_t Tn, std::size_t C, std::size_t hs, std::size_t& ld) {
    ld = (Tn + 63) / 64 * 64;
    thread_local std::vector<float> keys;
    if (keys.size() < hs * ld) keys.resize(hs * ld);
    transpose_keys(keys.data(), ld, qkv + C, 3 * C, Tn, hs);
    return keys.data();
}

// train_layers' scalar attention_head_rows, the same operations in the same order: query
// rows t0 … t1 − 1, row t's scores at s_rows + (t − t0)·Tn and pattern at a_rows + (t − t0)·Tn;
// max and sum over keys in order, e^x as std::exp, then z.
__attribute__((target("avx512f"))) void attention_rows_long(float* z, float* s_rows, float* a_rows, const float* kt,
                                                             std::size_t ld, const float* qkv, std::size_t t0,
                                                             std::size_t t1, std::size_t Tn, std::size_t C,
                                                             std::size_t hs) {
    const std::size_t C3 = 3 * C;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hs));
    thread_local std::vector<float> scratch;
    if (scratch.size() < 2 * ld) scratch.resize(2 * ld);
    float* s = scratch.data();  // [ld] one query's scores
    float* e = s + ld;          // [ld] their exponentials
    for (std::size_t t = t0; t < t1; ++t) {
        const std::size_t n = t + 1;  // keys 0 … t
        score_row(s, qkv + t * C3, kt, ld, n, hs, scale);
        float maxv = -INFINITY;
        for (std::size_t u = 0; u < n; ++u)
            if (s[u] > maxv) maxv = s[u];
        const __m512 vmax = _mm512_set1_ps(maxv);
        for (std::size_t u = 0; u < n; u += 16) _mm512_storeu_ps(e + u, exp16(_mm512_sub_ps(_mm512_loadu_ps(s + u), vmax)));
        float sum = 0;
        for (std::size_t u = 0; u < n; ++u) sum += e[u];
        const __m512 vsum = _mm512_set1_ps(sum);
        float* srow = s_rows + (t - t0) * Tn;  // [T]
        float* arow = a_rows + (t - t0) * Tn;  // [T]
        std::size_t u = 0;
        for (; u + 16 <= n; u += 16) {
            _mm512_storeu_ps(srow + u, _mm512_loadu_ps(s + u));
            _mm512_storeu_ps(arow + u, _mm512_div_ps(_mm512_loadu_ps(e + u), vsum));
        }
        for (; u < n; ++u) srow[u] = s[u], arow[u] = e[u] / sum;
        for (u = n; u < Tn; ++u) srow[u] = -INFINITY, arow[u] = 0.0f;  // the future, blocked
        weighted_values(z + t * C, arow, qkv + 2 * C, C3, n, hs);
    }
}

__attribute__((target("avx512f"))) void attention_head_backward(float* dqkv, float* dscores, float* dpattern,
                                                                const float* dz, const float* qkv, const float* pattern,
                                                                std::size_t Tn, std::size_t C, std::size_t hs) {
    const std::size_t C3 = 3 * C;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hs));
    alignas(64) float vt[64][16];  // [hs, 16] the head's values, one per lane
    transpose_rows(vt, qkv + 2 * C, C3, Tn, hs);
    alignas(64) float g[16][16];   // [T, 16] dscores · scale: w.r.t. q·k before the scale
    const __mmask16 row_mask = static_cast<__mmask16>((1u << Tn) - 1);
    row_groups(Tn, [&](auto rows, std::size_t t0) __attribute__((target("avx512f"))) {
        constexpr std::size_t R = decltype(rows)::value;
        __m512 dots[R];
        dots_rows<R>(dots, dz + t0 * C, C, vt, hs);  // dpattern = dz · vᵀ
#pragma GCC unroll 4
        for (std::size_t r = 0; r < R; ++r) {
            const std::size_t t = t0 + r;
            const __mmask16 seen = static_cast<__mmask16>((2u << t) - 1);
            const float* a = pattern + t * Tn;  // [T]
            alignas(64) float da[16];
            _mm512_store_ps(da, _mm512_maskz_mov_ps(seen, dots[r]));
            _mm512_mask_storeu_ps(dpattern + t * Tn, row_mask, _mm512_load_ps(da));
            float row_dot = 0;  // Σ_k A_k dA_k
            for (std::size_t u = 0; u <= t; ++u) row_dot += a[u] * da[u];
            const __m512 av = _mm512_maskz_loadu_ps(row_mask, a);
            const __m512 ds = _mm512_maskz_mov_ps(seen, _mm512_mul_ps(av, _mm512_sub_ps(_mm512_load_ps(da), _mm512_set1_ps(row_dot))));
            _mm512_mask_storeu_ps(dscores + t * Tn, row_mask, ds);
            _mm512_store_ps(g[t], _mm512_mul_ps(ds, _mm512_set1_ps(scale)));
        }
    });
    // Each gradient row's own sum in the scalar loop's order (over u for dq, over t for dk, dv).
    row_sums_all({dqkv, C3, &g[0][0], 16, 1, qkv + C, C3, Tn, true, true}, Tn, hs);           // dq_t += Σ_u g[t][u] k_u
    row_sums_all({dqkv + C, C3, &g[0][0], 1, 16, qkv, C3, Tn, false, true}, Tn, hs);          // dk_u += Σ_t g[t][u] q_t
    row_sums_all({dqkv + 2 * C, C3, pattern, 1, Tn, dz, C, Tn, false, true}, Tn, hs);         // dv_u += Σ_t a[t][u] dz_t
}

// ---- grouped-query attention (model/llama_attention.cpp) over at most 16 keys -------
//
// The products there are core/matmul calls; with the AVX-512 set an entry of C is a fused
// multiply-add chain from 0 over k in order, then alpha · sum (beta 0) or
// fma(alpha, sum, C) (beta 1). The loops below form every entry the same way, keys in
// lanes or d_head in lanes, so they give those calls' bits without their packing.

bool gqa_sizes_fit(std::size_t Tn, std::size_t dh) { return Tn > 0 && Tn <= 16 && dh % 16 == 0 && dh > 0 && dh <= 128; }

// dst [dh][16]: dst[p][u] = rows[u·ld + p] for u < Tn, 0 in the other lanes.
void gqa_transpose(float (&dst)[128][16], const float* rows, std::size_t ld, std::size_t Tn, std::size_t dh) {
    for (std::size_t p = 0; p < dh; ++p)
        for (std::size_t u = 0; u < 16; ++u) dst[p][u] = u < Tn ? rows[u * ld + p] : 0.0f;
}

// lanes[u] = Σ_p fma(x[p], cols[p][u]), p = 0 … dh − 1 in order, from 0.
__attribute__((target("avx512f"))) inline __m512 gqa_dots(const float* x, const float (&cols)[128][16], std::size_t dh) {
    __m512 acc = _mm512_setzero_ps();
    for (std::size_t p = 0; p < dh; ++p) acc = _mm512_fmadd_ps(_mm512_set1_ps(x[p]), _mm512_load_ps(cols[p]), acc);
    return acc;
}

// Weighted sums of rows, the products' other shape: R outputs side by side (independent
// chains, so the fused multiply-adds overlap), each 16·V wide:
//   out_r = alpha · Σ_u w[r·w_r + u·w_u] · rows_u        (add false: beta 0)
//   out_r = fma(alpha, Σ_u w[r·w_r + u·w_u] · rows_u, out_r)   (add true: beta 1)
// every sum over u = 0 … n − 1 in order from 0; row u at rows + u·ld, out_r at out + r·out_ld.
struct gqa_sums {
    float* out;
    std::size_t out_ld;
    const float* w;
    std::size_t w_r, w_u;
    const float* rows;
    std::size_t ld, n;
    float alpha;
    bool add;
};

template <std::size_t R, std::size_t V>
__attribute__((target("avx512f"))) inline void gqa_sums_tile(const gqa_sums& p, std::size_t r0, std::size_t c) {
    __m512 acc[R][V];  // in registers: every loop over r and j unrolled
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (std::size_t j = 0; j < V; ++j) acc[r][j] = _mm512_setzero_ps();
    const float* w = p.w + r0 * p.w_r;
    for (std::size_t u = 0; u < p.n; ++u) {
        __m512 b[V];
#pragma GCC unroll 4
        for (std::size_t j = 0; j < V; ++j) b[j] = _mm512_loadu_ps(p.rows + u * p.ld + c + 16 * j);
#pragma GCC unroll 4
        for (std::size_t r = 0; r < R; ++r) {
            const __m512 wu = _mm512_set1_ps(w[r * p.w_r + u * p.w_u]);
#pragma GCC unroll 4
            for (std::size_t j = 0; j < V; ++j) acc[r][j] = _mm512_fmadd_ps(wu, b[j], acc[r][j]);
        }
    }
    const __m512 va = _mm512_set1_ps(p.alpha);
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (std::size_t j = 0; j < V; ++j) {
            float* o = p.out + (r0 + r) * p.out_ld + c + 16 * j;
            _mm512_storeu_ps(o, p.add ? _mm512_fmadd_ps(va, acc[r][j], _mm512_loadu_ps(o)) : _mm512_mul_ps(va, acc[r][j]));
        }
}

// Outputs r0 … count − 1 four at a time, columns c … c + 16·V − 1.
template <std::size_t V>
__attribute__((target("avx512f"))) void gqa_sums_columns(const gqa_sums& p, std::size_t count, std::size_t c) {
    std::size_t r0 = 0;
    for (; r0 + 4 <= count; r0 += 4) gqa_sums_tile<4, V>(p, r0, c);
    switch (count - r0) {
        case 3: return gqa_sums_tile<3, V>(p, r0, c);
        case 2: return gqa_sums_tile<2, V>(p, r0, c);
        case 1: return gqa_sums_tile<1, V>(p, r0, c);
        default: return;
    }
}

// count outputs of dh columns (a multiple of 16): passes of four vectors, then the rest.
__attribute__((target("avx512f"))) void gqa_weighted_rows(const gqa_sums& p, std::size_t count, std::size_t dh) {
    std::size_t c = 0;
    for (; c + 64 <= dh; c += 64) gqa_sums_columns<4>(p, count, c);
    switch ((dh - c) / 16) {
        case 3: return gqa_sums_columns<3>(p, count, c);
        case 2: return gqa_sums_columns<2>(p, count, c);
        case 1: return gqa_sums_columns<1>(p, count, c);
        default: return;
    }
}

// One (batch row, query head): s = scale · q·kᵀ, a = the caller's softmax by rows, z = a·v.
__attribute__((target("avx512f"))) void gqa_forward_avx512(const gqa_head& h, const gqa_outputs& o,
                                                            const gqa_rows& rows) {
    alignas(64) float kt[128][16];  // [dh, 16] the group's keys, one per lane
    gqa_transpose(kt, h.k, h.ldk, h.Tn, h.dh);
    const __mmask16 row_mask = static_cast<__mmask16>((1u << h.Tn) - 1);
    for (std::size_t t = 0; t < h.Tn; ++t) {
        float* s = o.s + t * h.Tn;  // [T]
        _mm512_mask_storeu_ps(s, row_mask, _mm512_mul_ps(_mm512_set1_ps(h.scale), gqa_dots(h.q + t * h.ldq, kt, h.dh)));
        rows.softmax(o.a + t * h.Tn, s, t, h.Tn);
    }
    gqa_weighted_rows({o.z, h.ldq, o.a, h.Tn, 1, h.v, h.ldk, h.Tn, 1.0f, false}, h.Tn, h.dh);  // z_t = Σ_u a[t][u] v_u
}

// One query head's share of its group's backward: dA = dz·vᵀ, dS by the caller's rows,
// dq += scale · dS·k, dk += scale · dSᵀ·q, dv += Aᵀ·dz.
__attribute__((target("avx512f"))) void gqa_backward_avx512(const gqa_head& h, const gqa_grads& g, const gqa_rows& rows) {
    alignas(64) float vt[128][16];  // [dh, 16] the group's values, one per lane
    gqa_transpose(vt, h.v, h.ldk, h.Tn, h.dh);
    const __mmask16 row_mask = static_cast<__mmask16>((1u << h.Tn) - 1);
    for (std::size_t t = 0; t < h.Tn; ++t) {
        float* da = g.da + t * h.Tn;  // [T]
        _mm512_mask_storeu_ps(da, row_mask, gqa_dots(g.dz + t * h.ldq, vt, h.dh));  // alpha 1: the sum itself
        rows.softmax_backward(g.ds + t * h.Tn, da, g.a + t * h.Tn, t, h.Tn);
    }
    const std::size_t Tn = h.Tn;
    gqa_weighted_rows({g.dq, h.ldq, g.ds, Tn, 1, h.k, h.ldk, Tn, h.scale, true}, Tn, h.dh);   // dq_t += scale Σ_u ds[t][u] k_u
    gqa_weighted_rows({g.dk, h.ldk, g.ds, 1, Tn, h.q, h.ldq, Tn, h.scale, true}, Tn, h.dh);   // dk_u += scale Σ_t ds[t][u] q_t
    gqa_weighted_rows({g.dv, h.ldk, g.a, 1, Tn, g.dz, h.ldq, Tn, 1.0f, true}, Tn, h.dh);      // dv_u += Σ_t a[t][u] dz_t
}

// ---- element-wise passes: the scalar loops' operations, 16 columns at a time

__attribute__((target("avx512f"))) std::size_t add_avx512(float* acc, const float* x, std::size_t n) {
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(acc + i, _mm512_add_ps(_mm512_loadu_ps(acc + i), _mm512_loadu_ps(x + i)));
    return i;
}

__attribute__((target("avx512f"))) std::size_t plus_avx512(float* out, const float* a, const float* b, std::size_t n) {
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(out + i, _mm512_add_ps(a ? _mm512_loadu_ps(a + i) : _mm512_setzero_ps(), _mm512_loadu_ps(b + i)));
    return i;
}

// The sums in registers across the rows (not through memory row by row): the same additions.
__attribute__((target("avx512f"))) std::size_t column_sums_avx512(float* acc, const float* x, std::size_t N,
                                                                  std::size_t ld, std::size_t n) {
    std::size_t o = 0;
    for (; o + 16 <= n; o += 16) {
        __m512 a = _mm512_loadu_ps(acc + o);
        for (std::size_t r = 0; r < N; ++r) a = _mm512_add_ps(a, _mm512_loadu_ps(x + r * ld + o));
        _mm512_storeu_ps(acc + o, a);
    }
    return o;
}

__attribute__((target("avx512f"))) std::size_t norm_param_grads_rows_avx512(float* dw, float* db, const float* d,
                                                                            const float* x, const float* mean,
                                                                            const float* rstd, std::size_t N,
                                                                            std::size_t ld, std::size_t n) {
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 aw = _mm512_loadu_ps(dw + i), ab = _mm512_loadu_ps(db + i);
        for (std::size_t r = 0; r < N; ++r) {
            const __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + r * ld + i), _mm512_set1_ps(mean[r])),
                                              _mm512_set1_ps(rstd[r]));
            const __m512 dv = _mm512_loadu_ps(d + r * ld + i);
            ab = _mm512_add_ps(ab, dv);
            aw = _mm512_add_ps(aw, _mm512_mul_ps(xhat, dv));
        }
        _mm512_storeu_ps(dw + i, aw);
        _mm512_storeu_ps(db + i, ab);
    }
    return i;
}

__attribute__((target("avx512f"))) std::size_t norm_param_grads_avx512(float* dw, float* db, const float* d, const float* x,
                                                                       float m, float s, std::size_t n) {
    const __m512 vm = _mm512_set1_ps(m), vs = _mm512_set1_ps(s);
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm), vs);
        const __m512 dv = _mm512_loadu_ps(d + i);
        _mm512_storeu_ps(db + i, _mm512_add_ps(_mm512_loadu_ps(db + i), dv));
        _mm512_storeu_ps(dw + i, _mm512_add_ps(_mm512_loadu_ps(dw + i), _mm512_mul_ps(xhat, dv)));
    }
    return i;
}

__attribute__((target("avx512f"))) std::size_t adamw_avx512(float* p, const float* g, float* m, float* v, std::size_t n,
                                                            const adamw_consts& c) {
    const __m512 decay = _mm512_set1_ps(c.decay), b1 = _mm512_set1_ps(c.b1), one_b1 = _mm512_set1_ps(c.one_minus_b1);
    const __m512 b2 = _mm512_set1_ps(c.b2), one_b2 = _mm512_set1_ps(c.one_minus_b2), bc2 = _mm512_set1_ps(c.bc2_sqrt);
    const __m512 eps = _mm512_set1_ps(c.eps), step = _mm512_set1_ps(c.step_size);
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 pv = _mm512_loadu_ps(p + i);
        const __m512 gv = _mm512_loadu_ps(g + i);
        if (c.decayed) pv = _mm512_mul_ps(pv, decay);
        const __m512 mv = _mm512_add_ps(_mm512_mul_ps(b1, _mm512_loadu_ps(m + i)), _mm512_mul_ps(one_b1, gv));
        const __m512 vv = _mm512_add_ps(_mm512_mul_ps(b2, _mm512_loadu_ps(v + i)), _mm512_mul_ps(_mm512_mul_ps(one_b2, gv), gv));
        const __m512 denom = _mm512_add_ps(_mm512_div_ps(_mm512_sqrt_ps(vv), bc2), eps);
        pv = _mm512_sub_ps(pv, _mm512_div_ps(_mm512_mul_ps(step, mv), denom));
        _mm512_storeu_ps(m + i, mv);
        _mm512_storeu_ps(v + i, vv);
        _mm512_storeu_ps(p + i, pv);
    }
    return i;
}

// o = ((x − m)·s)·w + b.
__attribute__((target("avx512f"))) std::size_t norm_out_avx512(float* o, const float* x, const float* w, const float* b,
                                                               float m, float s, std::size_t n) {
    const __m512 vm = _mm512_set1_ps(m), vs = _mm512_set1_ps(s);
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm), vs);
        _mm512_storeu_ps(o + i, _mm512_add_ps(_mm512_mul_ps(xhat, _mm512_loadu_ps(w + i)), _mm512_loadu_ps(b + i)));
    }
    return i;
}

// dx += ((w·d − dnorm_mean) − x̂·dnorm_norm_mean)·s, x̂ = (x − m)·s.
__attribute__((target("avx512f"))) std::size_t norm_dx_avx512(float* dx, const float* d, const float* x, const float* w,
                                                              float m, float s, float dnorm_mean, float dnorm_norm_mean,
                                                              std::size_t n, bool add) {
    const __m512 vm = _mm512_set1_ps(m), vs = _mm512_set1_ps(s);
    const __m512 vmean = _mm512_set1_ps(dnorm_mean), vnm = _mm512_set1_ps(dnorm_norm_mean);
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm), vs);
        const __m512 dnorm = _mm512_mul_ps(_mm512_loadu_ps(w + i), _mm512_loadu_ps(d + i));
        const __m512 g = _mm512_mul_ps(_mm512_sub_ps(_mm512_sub_ps(dnorm, vmean), _mm512_mul_ps(xhat, vnm)), vs);
        _mm512_storeu_ps(dx + i, _mm512_add_ps(add ? _mm512_loadu_ps(dx + i) : _mm512_setzero_ps(), g));
    }
    return i;
}

}  // namespace
#endif

std::size_t exp(float* out, const float* x, std::size_t n) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? exp_avx512(out, x, n) : 0;
#else
    (void)out, (void)x, (void)n;
    return 0;
#endif
}

std::size_t gelu_forward(float* out, float* tanh_out, const float* inp, std::size_t n) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? gelu_avx512(out, tanh_out, inp, n) : 0;
#else
    (void)out, (void)tanh_out, (void)inp, (void)n;
    return 0;
#endif
}

std::size_t gelu_backward(float* dinp, const float* inp, const float* tanh_in, const float* dout, std::size_t n,
                          bool add) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? gelu_backward_avx512(dinp, inp, tanh_in, dout, n, add) : 0;
#else
    (void)dinp, (void)inp, (void)tanh_in, (void)dout, (void)n, (void)add;
    return 0;
#endif
}

std::size_t silu_gate_forward(float* post, const float* gate, const float* up, std::size_t n) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? silu_gate_avx512(post, gate, up, n) : 0;
#else
    (void)post, (void)gate, (void)up, (void)n;
    return 0;
#endif
}

std::size_t silu_gate_backward(float* dgate, float* dup, const float* dpost, const float* gate, const float* up,
                               std::size_t n, bool add) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? silu_gate_backward_avx512(dgate, dup, dpost, gate, up, n, add) : 0;
#else
    (void)dgate, (void)dup, (void)dpost, (void)gate, (void)up, (void)n, (void)add;
    return 0;
#endif
}

bool attention_runs(std::size_t Tn, std::size_t hs) {
#ifdef ATTN_TRAIN_SIMD
    return available() && attention_fits(Tn, hs);
#else
    (void)Tn, (void)hs;
    return false;
#endif
}

bool attention_forward(float* z, float* scores, float* pattern, const float* qkv, std::size_t b, std::size_t Tn,
                       std::size_t C, std::size_t NH) {
#ifdef ATTN_TRAIN_SIMD
    const std::size_t hs = C / NH;
    if (!available() || !attention_fits(Tn, hs)) return false;
    for (std::size_t h = 0; h < NH; ++h)
        attention_head_forward(z + b * Tn * C + h * hs, scores + (b * NH + h) * Tn * Tn, pattern + (b * NH + h) * Tn * Tn,
                               qkv + b * Tn * 3 * C + h * hs, Tn, C, hs);
    return true;
#else
    (void)z, (void)scores, (void)pattern, (void)qkv, (void)b, (void)Tn, (void)C, (void)NH;
    return false;
#endif
}

bool attention_head_long(float* z, float* scores, float* pattern, const float* qkv, std::size_t b, std::size_t h,
                         std::size_t Tn, std::size_t C, std::size_t NH) {
#ifdef ATTN_TRAIN_SIMD
    const std::size_t hs = C / NH;
    if (!available() || hs % 16 != 0 || hs == 0) return false;
    const float* head = qkv + b * Tn * 3 * C + h * hs;
    std::size_t ld = 0;
    const float* kt = head_keys_long(head, Tn, C, hs, ld);
    attention_rows_long(z + b * Tn * C + h * hs, scores + (b * NH + h) * Tn * Tn, pattern + (b * NH + h) * Tn * Tn, kt, ld,
                        head, 0, Tn, Tn, C, hs);
    return true;
#else
    (void)z, (void)scores, (void)pattern, (void)qkv, (void)b, (void)h, (void)Tn, (void)C, (void)NH;
    return false;
#endif
}

const float* attention_keys(const float* qkv, std::size_t b, std::size_t h, std::size_t Tn, std::size_t C,
                            std::size_t NH, std::size_t& ld) {
#ifdef ATTN_TRAIN_SIMD
    const std::size_t hs = C / NH;
    if (!available() || hs % 16 != 0 || hs == 0) return nullptr;
    return head_keys_long(qkv + b * Tn * 3 * C + h * hs, Tn, C, hs, ld);
#else
    (void)qkv, (void)b, (void)h, (void)Tn, (void)C, (void)NH, (void)ld;
    return nullptr;
#endif
}

void attention_rows(float* z, float* s, float* a, const float* kt, std::size_t ld, const float* qkv, std::size_t b,
                    std::size_t h, std::size_t t0, std::size_t t1, std::size_t Tn, std::size_t C, std::size_t NH) {
#ifdef ATTN_TRAIN_SIMD
    const std::size_t hs = C / NH;
    attention_rows_long(z + b * Tn * C + h * hs, s, a, kt, ld, qkv + b * Tn * 3 * C + h * hs, t0, t1, Tn, C, hs);
#else
    (void)z, (void)s, (void)a, (void)kt, (void)ld, (void)qkv, (void)b, (void)h, (void)t0, (void)t1, (void)Tn, (void)C,
        (void)NH;
#endif
}

bool attention_backward(float* dqkv, float* dscores, float* dpattern, const float* dz, const float* qkv,
                        const float* pattern, std::size_t b, std::size_t Tn, std::size_t C, std::size_t NH) {
#ifdef ATTN_TRAIN_SIMD
    const std::size_t hs = C / NH;
    if (!available() || !attention_fits(Tn, hs)) return false;
    for (std::size_t h = 0; h < NH; ++h) {
        const std::size_t rows = b * Tn, grid = (b * NH + h) * Tn * Tn;
        attention_head_backward(dqkv + rows * 3 * C + h * hs, dscores + grid, dpattern + grid, dz + rows * C + h * hs,
                                qkv + rows * 3 * C + h * hs, pattern + grid, Tn, C, hs);
    }
    return true;
#else
    (void)dqkv, (void)dscores, (void)dpattern, (void)dz, (void)qkv, (void)pattern, (void)b, (void)Tn, (void)C, (void)NH;
    return false;
#endif
}

bool gqa_fits(std::size_t Tn, std::size_t dh) {
#ifdef ATTN_TRAIN_SIMD
    return available() && gqa_sizes_fit(Tn, dh);
#else
    (void)Tn, (void)dh;
    return false;
#endif
}

void gqa_forward(const gqa_head& h, const gqa_outputs& o, const gqa_rows& rows) {
#ifdef ATTN_TRAIN_SIMD
    if (gqa_fits(h.Tn, h.dh)) return gqa_forward_avx512(h, o, rows);
#endif
    (void)h, (void)o, (void)rows;
    throw internal_error("model/train_simd: gqa_forward called at sizes gqa_fits refuses");
}

void gqa_backward(const gqa_head& h, const gqa_grads& g, const gqa_rows& rows) {
#ifdef ATTN_TRAIN_SIMD
    if (gqa_fits(h.Tn, h.dh)) return gqa_backward_avx512(h, g, rows);
#endif
    (void)h, (void)g, (void)rows;
    throw internal_error("model/train_simd: gqa_backward called at sizes gqa_fits refuses");
}

std::size_t add(float* acc, const float* x, std::size_t n) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? add_avx512(acc, x, n) : 0;
#else
    (void)acc, (void)x, (void)n;
    return 0;
#endif
}

std::size_t plus(float* out, const float* a, const float* b, std::size_t n) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? plus_avx512(out, a, b, n) : 0;
#else
    (void)out, (void)a, (void)b, (void)n;
    return 0;
#endif
}

std::size_t column_sums(float* acc, const float* x, std::size_t N, std::size_t ld, std::size_t n) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? column_sums_avx512(acc, x, N, ld, n) : 0;
#else
    (void)acc, (void)x, (void)N, (void)ld, (void)n;
    return 0;
#endif
}

std::size_t norm_param_grads_rows(float* dw, float* db, const float* d, const float* x, const float* mean,
                                  const float* rstd, std::size_t N, std::size_t ld, std::size_t n) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? norm_param_grads_rows_avx512(dw, db, d, x, mean, rstd, N, ld, n) : 0;
#else
    (void)dw, (void)db, (void)d, (void)x, (void)mean, (void)rstd, (void)N, (void)ld, (void)n;
    return 0;
#endif
}

std::size_t norm_param_grads(float* dw, float* db, const float* d, const float* x, float m, float s, std::size_t n) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? norm_param_grads_avx512(dw, db, d, x, m, s, n) : 0;
#else
    (void)dw, (void)db, (void)d, (void)x, (void)m, (void)s, (void)n;
    return 0;
#endif
}

std::size_t adamw(float* p, const float* g, float* m, float* v, std::size_t n, const adamw_consts& c) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? adamw_avx512(p, g, m, v, n, c) : 0;
#else
    (void)p, (void)g, (void)m, (void)v, (void)n, (void)c;
    return 0;
#endif
}

std::size_t norm_out(float* o, const float* x, const float* w, const float* b, float m, float s, std::size_t n) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? norm_out_avx512(o, x, w, b, m, s, n) : 0;
#else
    (void)o, (void)x, (void)w, (void)b, (void)m, (void)s, (void)n;
    return 0;
#endif
}

std::size_t norm_dx(float* dx, const float* d, const float* x, const float* w, float m, float s, float dnorm_mean,
                    float dnorm_norm_mean, std::size_t n, bool add) {
#ifdef ATTN_TRAIN_SIMD
    return available() ? norm_dx_avx512(dx, d, x, w, m, s, dnorm_mean, dnorm_norm_mean, n, add) : 0;
#else
    (void)dx, (void)d, (void)x, (void)w, (void)m, (void)s, (void)dnorm_mean, (void)dnorm_norm_mean, (void)n, (void)add;
    return 0;
#endif
}

}  // namespace attn::model::training::simd
