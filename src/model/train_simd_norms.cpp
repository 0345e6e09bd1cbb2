// model/train_simd_norms.cpp — the AVX-512 LayerNorm and RMSNorm rows of
// model/train_simd.hpp (forward and backward side by side), giving the bits of the scalar
// loops of model/train_layers (layer_norm_*) and model/llama_layers (rms_norm_*): a
// row's sums over its C columns (mean, variance, Σx², the backward's two means) run in
// column order, one row per lane, 16 rows side by side (the columns gathered); the
// elementwise parts run 16 columns at a time within a row. Compiled for the baseline
// CPU, each function carrying its own target attribute; they run only when core/kernels
// chose the AVX-512 set (tests/model_train_simd_test.cpp checks them against the loops).
#include "model/train_simd.hpp"

#include <cmath>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ATTN_TRAIN_SIMD_NORMS 1
#include "model/train_simd_transpose.hpp"
#endif

namespace attn::model::training::simd {

#ifdef ATTN_TRAIN_SIMD_NORMS
namespace {

// Lane u's offset of row u in a block of 16 rows of C floats.
__attribute__((target("avx512f"))) inline __m512i row_offsets(std::size_t C) {
    return _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                              _mm512_set1_epi32(static_cast<int>(C)));
}

// Column i of 16 rows (row u at rows + u·C + i), one per lane.
__attribute__((target("avx512f"))) inline __m512 column(const float* rows, __m512i offsets, std::size_t i) {
    return _mm512_i32gather_ps(offsets, rows + i, 4);
}

// The columns of 16 rows of C floats, one per lane: transposed once into this buffer when
// C is a multiple of 16 and at most 256 (the same values as the gathers, fewer loads),
// else gathered column by column.
struct row_columns {
    static constexpr std::size_t max_c = 256;
    alignas(64) float cols[max_c * 16];  // [C, 16]
    const float* rows = nullptr;
    std::size_t C = 0;
    bool transposed = false;
    __m512i offsets;

    __attribute__((target("avx512f"))) void load(const float* r, std::size_t c) {
        rows = r, C = c;
        transposed = C % 16 == 0 && C <= max_c;
        if (!transposed) {
            offsets = row_offsets(C);
            return;
        }
        for (std::size_t j = 0; j < C; j += 16) {
            __m512 b[16];
            #pragma GCC unroll 16
            for (std::size_t u = 0; u < 16; ++u) b[u] = _mm512_loadu_ps(rows + u * C + j);
            transpose16(b);
            #pragma GCC unroll 16
            for (std::size_t k = 0; k < 16; ++k) _mm512_store_ps(cols + (j + k) * 16, b[k]);
        }
    }
    __attribute__((target("avx512f"))) __m512 operator[](std::size_t i) const {
        return transposed ? _mm512_load_ps(cols + i * 16) : column(rows, offsets, i);
    }
};

// ---- RMSNorm: out = (x·s)·w, normalized = x·s, s = 1/√(Σx²/C + eps) ------------------

__attribute__((target("avx512f"))) std::size_t rms_rows_avx512(float* out, float* normalized, float* rstd,
                                                               const float* inp, const float* w, std::size_t n,
                                                               std::size_t C, float eps) {
    row_columns xc;
    std::size_t r0 = 0;
    for (; r0 + 16 <= n; r0 += 16) {
        const float* x = inp + r0 * C;  // [16, C]
        xc.load(x, C);
        __m512 ms = _mm512_setzero_ps();
        for (std::size_t i = 0; i < C; ++i) {
            const __m512 xi = xc[i];
            ms = _mm512_add_ps(ms, _mm512_mul_ps(xi, xi));
        }
        ms = _mm512_div_ps(ms, _mm512_set1_ps(static_cast<float>(C)));
        const __m512 s = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_sqrt_ps(_mm512_add_ps(ms, _mm512_set1_ps(eps))));
        _mm512_storeu_ps(rstd + r0, s);
        alignas(64) float sr[16];
        _mm512_store_ps(sr, s);
        for (std::size_t u = 0; u < 16; ++u) {
            const float* xr = x + u * C;  // [C]
            float* o = out + (r0 + u) * C;
            float* nr = normalized ? normalized + (r0 + u) * C : nullptr;
            const __m512 su = _mm512_set1_ps(sr[u]);
            std::size_t i = 0;
            for (; i + 16 <= C; i += 16) {
                const __m512 xs = _mm512_mul_ps(_mm512_loadu_ps(xr + i), su);
                _mm512_storeu_ps(o + i, _mm512_mul_ps(xs, _mm512_loadu_ps(w + i)));
                if (nr) _mm512_storeu_ps(nr + i, xs);
            }
            for (; i < C; ++i) {
                o[i] = (xr[i] * sr[u]) * w[i];
                if (nr) nr[i] = xr[i] * sr[u];
            }
        }
    }
    return r0;
}

// dx (+)= ((d·w) − (x·s)·gm)·s, gm = Σ (d·w)·(x·s) / C.
__attribute__((target("avx512f"))) std::size_t rms_backward_rows_avx512(float* dx, const float* dout, const float* inp,
                                                                        const float* w, const float* rstd,
                                                                        std::size_t n, std::size_t C, bool add) {
    row_columns xc, dc;
    std::size_t r0 = 0;
    for (; r0 + 16 <= n; r0 += 16) {
        const float* x = inp + r0 * C;   // [16, C]
        const float* d = dout + r0 * C;  // [16, C]
        xc.load(x, C);
        dc.load(d, C);
        const __m512 s = _mm512_loadu_ps(rstd + r0);
        __m512 gm = _mm512_setzero_ps();
        for (std::size_t i = 0; i < C; ++i) {
            const __m512 g = _mm512_mul_ps(dc[i], _mm512_set1_ps(w[i]));
            gm = _mm512_add_ps(gm, _mm512_mul_ps(g, _mm512_mul_ps(xc[i], s)));
        }
        alignas(64) float gr[16];
        _mm512_store_ps(gr, _mm512_div_ps(gm, _mm512_set1_ps(static_cast<float>(C))));
        for (std::size_t u = 0; u < 16; ++u) {
            const float* xr = x + u * C;
            const float* dr = d + u * C;
            float* o = dx + (r0 + u) * C;
            const float su = rstd[r0 + u], g = gr[u];
            const __m512 vs = _mm512_set1_ps(su), vg = _mm512_set1_ps(g);
            std::size_t i = 0;
            for (; i + 16 <= C; i += 16) {
                const __m512 dw = _mm512_mul_ps(_mm512_loadu_ps(dr + i), _mm512_loadu_ps(w + i));
                const __m512 xs = _mm512_mul_ps(_mm512_loadu_ps(xr + i), vs);
                const __m512 v = _mm512_mul_ps(_mm512_sub_ps(dw, _mm512_mul_ps(xs, vg)), vs);
                _mm512_storeu_ps(o + i, _mm512_add_ps(add ? _mm512_loadu_ps(o + i) : _mm512_setzero_ps(), v));
            }
            for (; i < C; ++i) o[i] = (add ? o[i] : 0.0f) + ((dr[i] * w[i]) - (xr[i] * su) * g) * su;
        }
    }
    return r0;
}

// dw[i] += d[r, i]·(x[r, i]·rstd[r]) over rows r in order, columns in whole vectors.
__attribute__((target("avx512f"))) std::size_t rms_dw_avx512(float* dw, const float* d, const float* x,
                                                             const float* rstd, std::size_t N, std::size_t C,
                                                             std::size_t cols) {
    std::size_t i = 0;
    for (; i + 16 <= cols; i += 16) {
        __m512 acc = _mm512_loadu_ps(dw + i);
        for (std::size_t r = 0; r < N; ++r)
            acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_loadu_ps(d + r * C + i),
                                                   _mm512_mul_ps(_mm512_loadu_ps(x + r * C + i),
                                                                 _mm512_set1_ps(rstd[r]))));
        _mm512_storeu_ps(dw + i, acc);
    }
    return i;
}

// ---- LayerNorm: out = ((x − m)·s)·w + b, m = Σx/C, s = 1/√(Σ(x − m)²/C + eps) ---------

__attribute__((target("avx512f"))) std::size_t layer_rows_avx512(float* out, float* normalized, float* mean,
                                                                 float* rstd, const float* inp, const float* w,
                                                                 const float* b, std::size_t n, std::size_t C,
                                                                 float eps) {
    row_columns xc;
    const __m512 count = _mm512_set1_ps(static_cast<float>(C));
    std::size_t r0 = 0;
    for (; r0 + 16 <= n; r0 += 16) {
        const float* x = inp + r0 * C;  // [16, C]
        xc.load(x, C);
        __m512 m = _mm512_setzero_ps();
        for (std::size_t i = 0; i < C; ++i) m = _mm512_add_ps(m, xc[i]);
        m = _mm512_div_ps(m, count);
        __m512 v = _mm512_setzero_ps();
        for (std::size_t i = 0; i < C; ++i) {
            const __m512 c = _mm512_sub_ps(xc[i], m);
            v = _mm512_add_ps(v, _mm512_mul_ps(c, c));
        }
        v = _mm512_div_ps(v, count);
        const __m512 s = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_sqrt_ps(_mm512_add_ps(v, _mm512_set1_ps(eps))));
        _mm512_storeu_ps(mean + r0, m);
        _mm512_storeu_ps(rstd + r0, s);
        for (std::size_t u = 0; u < 16; ++u) {
            const float* xr = x + u * C;
            float* o = out + (r0 + u) * C;
            float* nr = normalized ? normalized + (r0 + u) * C : nullptr;
            const float mu = mean[r0 + u], su = rstd[r0 + u];
            const __m512 vm = _mm512_set1_ps(mu), vs = _mm512_set1_ps(su);
            std::size_t i = 0;
            for (; i + 16 <= C; i += 16) {
                const __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(xr + i), vm), vs);
                _mm512_storeu_ps(o + i, _mm512_add_ps(_mm512_mul_ps(xhat, _mm512_loadu_ps(w + i)), _mm512_loadu_ps(b + i)));
                if (nr) _mm512_storeu_ps(nr + i, xhat);
            }
            for (; i < C; ++i) {
                o[i] = (xr[i] - mu) * su * w[i] + b[i];
                if (nr) nr[i] = (xr[i] - mu) * su;
            }
        }
    }
    return r0;
}

// dx (+)= ((w·d − dm) − x̂·dnm)·s, dm = Σ w·d / C, dnm = Σ (w·d)·x̂ / C, x̂ = (x − m)·s.
__attribute__((target("avx512f"))) std::size_t layer_backward_rows_avx512(float* dx, const float* dout,
                                                                          const float* inp, const float* w,
                                                                          const float* mean, const float* rstd,
                                                                          std::size_t n, std::size_t C, bool add) {
    row_columns xc, dc;
    const __m512 count = _mm512_set1_ps(static_cast<float>(C));
    std::size_t r0 = 0;
    for (; r0 + 16 <= n; r0 += 16) {
        const float* x = inp + r0 * C;   // [16, C]
        const float* d = dout + r0 * C;  // [16, C]
        xc.load(x, C);
        dc.load(d, C);
        const __m512 m = _mm512_loadu_ps(mean + r0), s = _mm512_loadu_ps(rstd + r0);
        __m512 dm = _mm512_setzero_ps(), dnm = _mm512_setzero_ps();
        for (std::size_t i = 0; i < C; ++i) {
            const __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(xc[i], m), s);
            const __m512 dnorm = _mm512_mul_ps(_mm512_set1_ps(w[i]), dc[i]);
            dm = _mm512_add_ps(dm, dnorm);
            dnm = _mm512_add_ps(dnm, _mm512_mul_ps(dnorm, xhat));
        }
        alignas(64) float dmr[16], dnmr[16];
        _mm512_store_ps(dmr, _mm512_div_ps(dm, count));
        _mm512_store_ps(dnmr, _mm512_div_ps(dnm, count));
        for (std::size_t u = 0; u < 16; ++u) {
            const float* xr = x + u * C;
            const float* dr = d + u * C;
            float* o = dx + (r0 + u) * C;
            const float mu = mean[r0 + u], su = rstd[r0 + u];
            std::size_t i = norm_dx(o, dr, xr, w, mu, su, dmr[u], dnmr[u], C, add);
            for (; i < C; ++i) {
                const float xhat = (xr[i] - mu) * su;
                o[i] = (add ? o[i] : 0.0f) + (w[i] * dr[i] - dmr[u] - xhat * dnmr[u]) * su;
            }
        }
    }
    return r0;
}

}  // namespace
#endif

std::size_t rms_norm_rows(float* out, float* normalized, float* rstd, const float* inp, const float* w, std::size_t n,
                          std::size_t C, float eps) {
#ifdef ATTN_TRAIN_SIMD_NORMS
    return available() ? rms_rows_avx512(out, normalized, rstd, inp, w, n, C, eps) : 0;
#else
    (void)out, (void)normalized, (void)rstd, (void)inp, (void)w, (void)n, (void)C, (void)eps;
    return 0;
#endif
}

std::size_t rms_norm_backward_rows(float* dx, const float* dout, const float* inp, const float* w, const float* rstd,
                                   std::size_t n, std::size_t C, bool add) {
#ifdef ATTN_TRAIN_SIMD_NORMS
    return available() ? rms_backward_rows_avx512(dx, dout, inp, w, rstd, n, C, add) : 0;
#else
    (void)dx, (void)dout, (void)inp, (void)w, (void)rstd, (void)n, (void)C, (void)add;
    return 0;
#endif
}

std::size_t rms_norm_dw(float* dw, const float* dout, const float* inp, const float* rstd, std::size_t N,
                        std::size_t C, std::size_t cols) {
#ifdef ATTN_TRAIN_SIMD_NORMS
    return available() ? rms_dw_avx512(dw, dout, inp, rstd, N, C, cols) : 0;
#else
    (void)dw, (void)dout, (void)inp, (void)rstd, (void)N, (void)C, (void)cols;
    return 0;
#endif
}

std::size_t layer_norm_rows(float* out, float* normalized, float* mean, float* rstd, const float* inp, const float* w,
                            const float* b, std::size_t n, std::size_t C, float eps) {
#ifdef ATTN_TRAIN_SIMD_NORMS
    return available() ? layer_rows_avx512(out, normalized, mean, rstd, inp, w, b, n, C, eps) : 0;
#else
    (void)out, (void)normalized, (void)mean, (void)rstd, (void)inp, (void)w, (void)b, (void)n, (void)C, (void)eps;
    return 0;
#endif
}

std::size_t layer_norm_backward_rows(float* dx, const float* dout, const float* inp, const float* w, const float* mean,
                                     const float* rstd, std::size_t n, std::size_t C, bool add) {
#ifdef ATTN_TRAIN_SIMD_NORMS
    return available() ? layer_backward_rows_avx512(dx, dout, inp, w, mean, rstd, n, C, add) : 0;
#else
    (void)dx, (void)dout, (void)inp, (void)w, (void)mean, (void)rstd, (void)n, (void)C, (void)add;
    return 0;
#endif
}

}  // namespace attn::model::training::simd
