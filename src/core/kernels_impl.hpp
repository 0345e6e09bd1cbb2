// core/kernels_impl.hpp — the one template of the product kernels (core/kernels.hpp),
// included by each instruction-set file *inside its anonymous namespace* after that file
// has defined its vector type V:
//   V::T, V::reg, V::width, V::zero(), V::load(p), V::store(p, r), V::set1(x),
//   V::mul(a, b), V::fma(a, b, c) = a·b + c  (fused or not: the file decides)
// Internal linkage in every file keeps the linker from ever sharing one file's
// AVX-512 copy of a function with another file's callers. No standard-library
// templates are instantiated here for the same reason.
//
// Not a normal header: no include guard, no includes (the including file has them).

#ifndef ATTN_KERNEL_INLINE
#define ATTN_KERNEL_INLINE inline __attribute__((always_inline))
#endif

// One mr × nr tile of C: mr rows of broadcast A times nv vectors of B per step of k.
template <class V, std::size_t MR, std::size_t NV>
struct tile {
    using T = typename V::T;
    using reg = typename V::reg;
    static constexpr std::size_t W = V::width, NR = NV * W;

    // acc [MR][NV] = Σ_p a[p] ⊗ b[p], p in order: pa [kc, MR], pb [kc, NR] (packed strips).
    // pb advances by b_step per value of k: NR for the tile's own strips, more for the first
    // columns of a wider strip (an edge strip of one vector read by a one-vector tile).
    static ATTN_KERNEL_INLINE void sum(std::size_t kc, const T* pa, const T* pb, reg (&acc)[MR][NV],
                                       std::size_t b_step = NR) {
#pragma GCC unroll 32
        for (std::size_t i = 0; i < MR; ++i)
#pragma GCC unroll 8
            for (std::size_t j = 0; j < NV; ++j) acc[i][j] = V::zero();
        for (std::size_t p = 0; p < kc; ++p) {
            reg b[NV];
#pragma GCC unroll 8
            for (std::size_t j = 0; j < NV; ++j) b[j] = V::load(pb + j * W);
#pragma GCC unroll 32
            for (std::size_t i = 0; i < MR; ++i) {
                const reg a = V::set1(pa[i]);
#pragma GCC unroll 8
                for (std::size_t j = 0; j < NV; ++j) acc[i][j] = V::fma(a, b[j], acc[i][j]);
            }
            pa += MR;
            pb += b_step;
        }
    }

    // C [MR, NR] (row stride ldc) = alpha · acc + beta · C; beta = 0 never reads C.
    static ATTN_KERNEL_INLINE void store(reg (&acc)[MR][NV], T alpha, T beta, T* c, std::size_t ldc) {
        const reg va = V::set1(alpha);
        if (beta == T(0)) {
#pragma GCC unroll 32
            for (std::size_t i = 0; i < MR; ++i)
#pragma GCC unroll 8
                for (std::size_t j = 0; j < NV; ++j) V::store(c + i * ldc + j * W, V::mul(va, acc[i][j]));
        } else if (beta == T(1)) {
#pragma GCC unroll 32
            for (std::size_t i = 0; i < MR; ++i)
#pragma GCC unroll 8
                for (std::size_t j = 0; j < NV; ++j)
                    V::store(c + i * ldc + j * W, V::fma(va, acc[i][j], V::load(c + i * ldc + j * W)));
        } else {
            const reg vb = V::set1(beta);
#pragma GCC unroll 32
            for (std::size_t i = 0; i < MR; ++i)
#pragma GCC unroll 8
                for (std::size_t j = 0; j < NV; ++j)
                    V::store(c + i * ldc + j * W,
                             V::fma(va, acc[i][j], V::mul(vb, V::load(c + i * ldc + j * W))));
        }
    }

    // The same sum with A read in place, row-major: row i of the tile at rows[i], k contiguous.
    // pb advances by b_step per value of k: NR for a packed strip, ldb for B read in place.
    static ATTN_KERNEL_INLINE void sum_rows(std::size_t kc, const T* const (&rows)[MR], const T* pb,
                                            reg (&acc)[MR][NV], std::size_t b_step = NR) {
#pragma GCC unroll 32
        for (std::size_t i = 0; i < MR; ++i)
#pragma GCC unroll 8
            for (std::size_t j = 0; j < NV; ++j) acc[i][j] = V::zero();
        for (std::size_t p = 0; p < kc; ++p) {
            reg b[NV];
#pragma GCC unroll 8
            for (std::size_t j = 0; j < NV; ++j) b[j] = V::load(pb + j * W);
#pragma GCC unroll 32
            for (std::size_t i = 0; i < MR; ++i) {
                const reg a = V::set1(rows[i][p]);
#pragma GCC unroll 8
                for (std::size_t j = 0; j < NV; ++j) acc[i][j] = V::fma(a, b[j], acc[i][j]);
            }
            pb += b_step;
        }
    }

    static void full(std::size_t kc, const T* pa, const T* pb, T alpha, T beta, T* c, std::size_t ldc,
                     std::size_t b_step = NR) {
        reg acc[MR][NV];
        sum(kc, pa, pb, acc, b_step);
        store(acc, alpha, beta, c, ldc);
    }

    // A tile cut by the edge of C (rows × cols valid): the same arithmetic on a scratch
    // tile, then the valid part copied, so an entry's bits never depend on its tile.
    static void edge(std::size_t kc, const T* pa, const T* pb, T alpha, T beta, T* c, std::size_t ldc,
                     std::size_t rows, std::size_t cols, std::size_t b_step = NR) {
        alignas(64) T scratch[MR * NR];  // [MR, NR]
        for (std::size_t i = 0; i < MR; ++i)
            for (std::size_t j = 0; j < NR; ++j)
                scratch[i * NR + j] = (beta != T(0) && i < rows && j < cols) ? c[i * ldc + j] : T(0);
        reg acc[MR][NV];
        sum(kc, pa, pb, acc, b_step);
        store(acc, alpha, beta, scratch, NR);
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j) c[i * ldc + j] = scratch[i * NR + j];
    }
};

// A [mc, kc] → strips [⌈mc/MR⌉, kc, MR], rows past mc zero.
template <class T, std::size_t MR>
void pack_a(bool trans, std::size_t mc, std::size_t kc, const T* a, std::size_t lda, T* dst) {
    for (std::size_t i0 = 0; i0 < mc; i0 += MR, dst += kc * MR) {
        const std::size_t rows = mc - i0 < MR ? mc - i0 : MR;
        if (!trans) {
            for (std::size_t i = 0; i < rows; ++i) {
                const T* row = a + (i0 + i) * lda;
                for (std::size_t p = 0; p < kc; ++p) dst[p * MR + i] = row[p];
            }
        } else {
            for (std::size_t p = 0; p < kc; ++p) {
                const T* col = a + p * lda + i0;
                for (std::size_t i = 0; i < rows; ++i) dst[p * MR + i] = col[i];
            }
        }
        for (std::size_t i = rows; i < MR; ++i)
            for (std::size_t p = 0; p < kc; ++p) dst[p * MR + i] = T(0);
    }
}

// B [kc, nc] → strips [⌈nc/NR⌉, kc, NR], columns past nc zero.
template <class T, std::size_t NR>
void pack_b(bool trans, std::size_t kc, std::size_t nc, const T* b, std::size_t ldb, T* dst) {
    for (std::size_t j0 = 0; j0 < nc; j0 += NR, dst += kc * NR) {
        const std::size_t cols = nc - j0 < NR ? nc - j0 : NR;
        if (!trans) {
            for (std::size_t p = 0; p < kc; ++p) {
                const T* row = b + p * ldb + j0;
                T* out = dst + p * NR;
                for (std::size_t j = 0; j < cols; ++j) out[j] = row[j];
                for (std::size_t j = cols; j < NR; ++j) out[j] = T(0);
            }
        } else {
            for (std::size_t j = 0; j < cols; ++j) {
                const T* col = b + (j0 + j) * ldb;
                for (std::size_t p = 0; p < kc; ++p) dst[p * NR + j] = col[p];
            }
            for (std::size_t j = cols; j < NR; ++j)
                for (std::size_t p = 0; p < kc; ++p) dst[p * NR + j] = T(0);
        }
    }
}

// A strip of NR columns of which at most one vector's are valid (C's last, at 48 or 144
// columns): a one-vector tile over the strip's first columns, so the zero padding is not
// multiplied. Each entry is the same sum from zero over p in order and the same alpha/beta
// step as in the wide tile: the same bits.
template <class V, std::size_t MR, std::size_t NV>
ATTN_KERNEL_INLINE void narrow_strip(std::size_t kc, const typename V::T* pa, const typename V::T* pb,
                                     typename V::T alpha, typename V::T beta, typename V::T* c, std::size_t ldc,
                                     std::size_t rows, std::size_t cols) {
    using one = tile<V, MR, 1>;
    if (rows == MR && cols == V::width)
        one::full(kc, pa, pb, alpha, beta, c, ldc, tile<V, MR, NV>::NR);
    else
        one::edge(kc, pa, pb, alpha, beta, c, ldc, rows, cols, tile<V, MR, NV>::NR);
}

// Every tile of C [mc, nc]: B strips outer (one stays in L1), A strips inner.
template <class V, std::size_t MR, std::size_t NV>
void block(std::size_t mc, std::size_t nc, std::size_t kc, const typename V::T* pa, const typename V::T* pb,
           typename V::T alpha, typename V::T beta, typename V::T* c, std::size_t ldc) {
    using tl = tile<V, MR, NV>;
    constexpr std::size_t NR = tl::NR;
    for (std::size_t j0 = 0; j0 < nc; j0 += NR) {
        const auto* b = pb + (j0 / NR) * kc * NR;
        const std::size_t cols = nc - j0 < NR ? nc - j0 : NR;
        for (std::size_t i0 = 0; i0 < mc; i0 += MR) {
            const auto* a = pa + (i0 / MR) * kc * MR;
            const std::size_t rows = mc - i0 < MR ? mc - i0 : MR;
            if (rows == MR && cols == NR)
                tl::full(kc, a, b, alpha, beta, c + i0 * ldc + j0, ldc);
            else if (NV > 1 && cols <= V::width)  // one vector of the strip: its first columns only
                narrow_strip<V, MR, NV>(kc, a, b, alpha, beta, c + i0 * ldc + j0, ldc, rows, cols);
            else
                tl::edge(kc, a, b, alpha, beta, c + i0 * ldc + j0, ldc, rows, cols);
        }
    }
}

#include "core/kernels_softmax_impl.hpp"

// The machine's FMA throughput, for the benchmark's peak: 24 independent chains of
// a·x + b (enough to cover the FMA latency on any core this runs on), `steps` times.
// Returns a value that depends on every result so nothing is optimised away.
template <class V>
typename V::T fma_loop(std::size_t steps) {
    using reg = typename V::reg;
    using T = typename V::T;
    constexpr std::size_t chains = 24;
    reg acc[chains];
#pragma GCC unroll 24
    for (std::size_t c = 0; c < chains; ++c) acc[c] = V::set1(T(c) * T(1e-3));
    const reg a = V::set1(T(0.999999)), b = V::set1(T(1e-7));
    for (std::size_t i = 0; i < steps; ++i) {
#pragma GCC unroll 24
        for (std::size_t c = 0; c < chains; ++c) acc[c] = V::fma(acc[c], a, b);
    }
    reg sum = V::zero();
#pragma GCC unroll 24
    for (std::size_t c = 0; c < chains; ++c) sum = sum + acc[c];
    return lanes_sum<V>(sum);
}

// narrow_strip() with A read in place (block_rows' rows).
template <class V, std::size_t MR, std::size_t NV>
ATTN_KERNEL_INLINE void narrow_rows(std::size_t kc, const typename V::T* const (&row)[MR], const typename V::T* b,
                                    std::size_t b_step, typename V::T alpha, typename V::T beta, typename V::T* c,
                                    std::size_t ldc, std::size_t rows, std::size_t cols) {
    using one = tile<V, MR, 1>;
    using T = typename V::T;
    constexpr std::size_t W = V::width;
    typename one::reg acc[MR][1];
    one::sum_rows(kc, row, b, acc, b_step);
    if (rows == MR && cols == W) return one::store(acc, alpha, beta, c, ldc);
    alignas(64) T scratch[MR * W];  // [MR, W]
    for (std::size_t i = 0; i < MR; ++i)
        for (std::size_t j = 0; j < W; ++j)
            scratch[i * W + j] = (beta != T(0) && i < rows && j < cols) ? c[i * ldc + j] : T(0);
    one::store(acc, alpha, beta, scratch, W);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) c[i * ldc + j] = scratch[i * W + j];
}

// block() with A read in place (row-major [mc, kc], row stride lda) instead of packed:
// for a product whose A is used for few B strips (P · V at d_v = 64), packing A would
// cost about as much as the product. Rows past mc read row 0 and are never stored.
template <class V, std::size_t MR, std::size_t NV>
void block_rows(std::size_t mc, std::size_t nc, std::size_t kc, const typename V::T* a, std::size_t lda,
                const typename V::T* pb, typename V::T alpha, typename V::T beta, typename V::T* c,
                std::size_t ldc, std::size_t ldb = 0) {
    using tl = tile<V, MR, NV>;
    using T = typename V::T;
    constexpr std::size_t NR = tl::NR;
    for (std::size_t i0 = 0; i0 < mc; i0 += MR) {
        const std::size_t rows = mc - i0 < MR ? mc - i0 : MR;
        const T* row[MR];
        for (std::size_t i = 0; i < MR; ++i) row[i] = a + (i0 + (i < rows ? i : 0)) * lda;
        for (std::size_t j0 = 0; j0 < nc; j0 += NR) {
            const T* b = ldb ? pb + j0 : pb + (j0 / NR) * kc * NR;  // in place: column j0 of row 0
            const std::size_t cols = nc - j0 < NR ? nc - j0 : NR;
            if (NV > 1 && cols <= V::width) {  // narrow_strip's one-vector tile, A in place
                narrow_rows<V, MR, NV>(kc, row, b, ldb ? ldb : NR, alpha, beta, c + i0 * ldc + j0, ldc, rows, cols);
                continue;
            }
            typename tl::reg acc[MR][NV];
            tl::sum_rows(kc, row, b, acc, ldb ? ldb : NR);
            if (rows == MR && cols == NR) {
                tl::store(acc, alpha, beta, c + i0 * ldc + j0, ldc);
            } else {
                alignas(64) T scratch[MR * NR];  // [MR, NR]: same arithmetic as a full tile
                for (std::size_t i = 0; i < MR; ++i)
                    for (std::size_t j = 0; j < NR; ++j)
                        scratch[i * NR + j] = (beta != T(0) && i < rows && j < cols) ? c[(i0 + i) * ldc + j0 + j] : T(0);
                tl::store(acc, alpha, beta, scratch, NR);
                for (std::size_t i = 0; i < rows; ++i)
                    for (std::size_t j = 0; j < cols; ++j) c[(i0 + i) * ldc + j0 + j] = scratch[i * NR + j];
            }
        }
    }
}

// block_rows() on a packed B (the gemm_ops entry).
template <class V, std::size_t MR, std::size_t NV>
void block_rows_packed(std::size_t mc, std::size_t nc, std::size_t kc, const typename V::T* a, std::size_t lda,
                       const typename V::T* pb, typename V::T alpha, typename V::T beta, typename V::T* c,
                       std::size_t ldc) {
    block_rows<V, MR, NV>(mc, nc, kc, a, lda, pb, alpha, beta, c, ldc);
}

// block_rows() with B [kc, nc] read in place, row stride ldb: nc must be a multiple of
// NR (no edge strip to pad). P · V reads V this way at d_v = 64, unpacked.
template <class V, std::size_t MR, std::size_t NV>
void block_rows_b(std::size_t mc, std::size_t nc, std::size_t kc, const typename V::T* a, std::size_t lda,
                  const typename V::T* b, std::size_t ldb, typename V::T alpha, typename V::T beta,
                  typename V::T* c, std::size_t ldc) {
    block_rows<V, MR, NV>(mc, nc, kc, a, lda, b, alpha, beta, c, ldc, ldb);
}

// ---- one row of C: decoding's matrix-vector products ---------------------------------
// C [1, cols] = alpha · a [kc] · B [kc, cols] + beta · C for one group of up to
// row_vectors vectors of columns. Every entry goes through the tile's arithmetic (sum
// from zero over p in order, then tile::store's alpha/beta step), so a row comes out
// with the bits block() or block_rows() give it, without the tile's mr rows computing
// it mr times; the group's row_vectors chains keep the FMA units busy.
constexpr std::size_t row_vectors = 8;

template <class V>
struct row_group {
    using T = typename V::T;
    using reg = typename V::reg;
    static constexpr std::size_t W = V::width, G = row_vectors * W;

    // tile::store's step for one vector of C at c.
    static ATTN_KERNEL_INLINE reg finish(reg acc, reg va, T beta, const T* c) {
        if (beta == T(0)) return V::mul(va, acc);
        if (beta == T(1)) return V::fma(va, acc, V::load(c));
        return V::fma(va, acc, V::mul(V::set1(beta), V::load(c)));
    }

    // C's first `cols` values from the accumulators (a cut vector through a scratch).
    static ATTN_KERNEL_INLINE void write(reg (&acc)[row_vectors], std::size_t cols, T alpha, T beta, T* c) {
        const reg va = V::set1(alpha);
#pragma GCC unroll 8
        for (std::size_t v = 0; v < row_vectors; ++v) {
            const std::size_t c0 = v * W;
            if (c0 + W <= cols) {
                V::store(c + c0, finish(acc[v], va, beta, c + c0));
            } else if (c0 < cols) {
                alignas(64) T scratch[W];  // [W] the cut vector's C, zeros past cols
                for (std::size_t j = 0; j < W; ++j) scratch[j] = c0 + j < cols && beta != T(0) ? c[c0 + j] : T(0);
                V::store(scratch, finish(acc[v], va, beta, scratch));
                for (std::size_t j = 0; c0 + j < cols; ++j) c[c0 + j] = scratch[j];
            }
        }
    }

    // B packed: pb [kc, G] (columns past cols zero), row p at pb + p·G.
    static void packed(std::size_t kc, std::size_t cols, const T* a, const T* pb, T alpha, T beta, T* c) {
        reg acc[row_vectors];
#pragma GCC unroll 8
        for (std::size_t v = 0; v < row_vectors; ++v) acc[v] = V::zero();
        for (std::size_t p = 0; p < kc; ++p, pb += G) {
            const reg x = V::set1(a[p]);
#pragma GCC unroll 8
            for (std::size_t v = 0; v < row_vectors; ++v) acc[v] = V::fma(x, V::load(pb + v * W), acc[v]);
        }
        write(acc, cols, alpha, beta, c);
    }

    // B read in place: row p at b + p·ldb, cols ≤ G values read (a cut vector through a scratch).
    static void in_place(std::size_t kc, std::size_t cols, const T* a, const T* b, std::size_t ldb, T alpha, T beta, T* c) {
        reg acc[row_vectors];
#pragma GCC unroll 8
        for (std::size_t v = 0; v < row_vectors; ++v) acc[v] = V::zero();
        const std::size_t full = cols / W, rest = cols % W;
        if (full == row_vectors) {
            for (std::size_t p = 0; p < kc; ++p, b += ldb) {
                const reg x = V::set1(a[p]);
#pragma GCC unroll 8
                for (std::size_t v = 0; v < row_vectors; ++v) acc[v] = V::fma(x, V::load(b + v * W), acc[v]);
            }
            return write(acc, cols, alpha, beta, c);
        }
        alignas(64) T cut[W] = {};  // [W] the cut vector of row p, zeros past cols
        for (std::size_t p = 0; p < kc; ++p, b += ldb) {
            const reg x = V::set1(a[p]);
#pragma GCC unroll 8
            for (std::size_t v = 0; v < row_vectors; ++v)
                if (v < full) acc[v] = V::fma(x, V::load(b + v * W), acc[v]);
            if (rest == 0) continue;
            for (std::size_t j = 0; j < rest; ++j) cut[j] = b[full * W + j];
            acc[full] = V::fma(x, V::load(cut), acc[full]);
        }
        write(acc, cols, alpha, beta, c);
    }
};

template <class V>
void row_packed(std::size_t kc, std::size_t cols, const typename V::T* a, const typename V::T* pb, typename V::T alpha,
                typename V::T beta, typename V::T* c) {
    row_group<V>::packed(kc, cols, a, pb, alpha, beta, c);
}

template <class V>
void row_in_place(std::size_t kc, std::size_t cols, const typename V::T* a, const typename V::T* b, std::size_t ldb,
                  typename V::T alpha, typename V::T beta, typename V::T* c) {
    row_group<V>::in_place(kc, cols, a, b, ldb, alpha, beta, c);
}

// The gemm_ops of one element type for this file's vector type.
template <class V, std::size_t MR, std::size_t NV>
gemm_ops<typename V::T> make_ops() {
    using T = typename V::T;
    gemm_ops<T> o;
    o.mr = MR;
    o.nr = NV * V::width;
    o.pack_a = &pack_a<T, MR>;
    o.pack_b = &pack_b<T, NV * V::width>;
    o.block = &block<V, MR, NV>;
    o.block_rows = &block_rows_packed<V, MR, NV>;
    o.block_rows_b = &block_rows_b<V, MR, NV>;
    o.row_group = row_group<V>::G;
    o.row_packed = &row_packed<V>;
    o.row_in_place = &row_in_place<V>;
    o.softmax_row = &softmax_row<V>;
    o.row_scores = &scores_of_row<V>;
    o.exp_sum = &exp_shifted_sum<V>;
    o.scale = &scale_in_place<V>;
    o.exp_in_place = &exp_in_place<V>;
    o.fma_loop = &fma_loop<V>;
    o.flops_per_fma_step = 2 * 24 * V::width;
    return o;
}
