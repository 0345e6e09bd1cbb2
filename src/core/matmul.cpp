// core/matmul.cpp — matmul() on attn's own kernels (core/kernels.hpp), BLIS-style:
// B in [kc, nc] blocks packed once per block, A in [mc, kc] blocks, the tiles in
// registers. Its speed no longer hangs on the BLAS build's CPU table (issue 23).
//
// Threads split C into column (or row) ranges on whole tiles; each thread packs what
// its range reads and runs the same loops, so every entry of C sums over k in the same
// blocks and order whatever the thread count (the bits never change with threads).
#include "core/matmul.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "core/fast_parallel.hpp"
#include "core/kernels.hpp"

namespace attn {

namespace {

constexpr std::size_t kc_max = 256;  // k per packed block: an A strip + a B strip fit L1

// Block sizes for a kernel set: an A block [mc, kc] in L2, a B block [kc, nc] in L3.
template <class T>
struct blocking {
    std::size_t mc, nc;
    explicit blocking(const kernels::gemm_ops<T>& ops) : mc(ops.mr * 16), nc(ops.nr * 128) {}
};

// Packed blocks of one thread, kept between calls (a VM page costs ~12 µs the first time).
template <class T>
struct pack_buffers {
    std::vector<T> a, b;
};
template <class T>
pack_buffers<T>& thread_buffers() {
    thread_local pack_buffers<T> buffers;
    return buffers;
}

// C [m, n] = alpha · op(A) · op(B) + beta · C on this thread. a, b, c point at the
// sub-matrix's (0, 0) (for a transposed operand that is its stored (0, 0) as well).
template <class T>
void matmul_serial(bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, T alpha, const T* a,
                   std::size_t lda, const T* b, std::size_t ldb, T beta, T* c, std::size_t ldc) {
    const auto& ops = kernels::active().ops<T>();
    const blocking<T> bl(ops);
    auto& buf = thread_buffers<T>();
    const std::size_t kc_top = std::min(k, kc_max);
    buf.a.resize(kernels::strips(std::min(m, bl.mc), ops.mr) * ops.mr * kc_top);  // [⌈mc/mr⌉, kc, mr]
    buf.b.resize(kernels::strips(std::min(n, bl.nc), ops.nr) * ops.nr * kc_top);  // [⌈nc/nr⌉, kc, nr]
    for (std::size_t j0 = 0; j0 < n; j0 += bl.nc) {
        const std::size_t nc = std::min(bl.nc, n - j0);
        for (std::size_t p0 = 0; p0 < k; p0 += kc_max) {
            const std::size_t kc = std::min(kc_max, k - p0);
            ops.pack_b(tb, kc, nc, tb ? b + j0 * ldb + p0 : b + p0 * ldb + j0, ldb, buf.b.data());
            const T block_beta = p0 == 0 ? beta : T(1);  // later k blocks add to C
            for (std::size_t i0 = 0; i0 < m; i0 += bl.mc) {
                const std::size_t mc = std::min(bl.mc, m - i0);
                T* cb = c + i0 * ldc + j0;
                if (!ta) {  // A read in place: as fast as packed here, and no copy (same bits)
                    ops.block_rows(mc, nc, kc, a + i0 * lda + p0, lda, buf.b.data(), alpha, block_beta, cb, ldc);
                    continue;
                }
                ops.pack_a(ta, mc, kc, a + p0 * lda + i0, lda, buf.a.data());
                ops.block(mc, nc, kc, buf.a.data(), buf.b.data(), alpha, block_beta, cb, ldc);
            }
        }
    }
}

// The [kc, nc] blocks of op(B) in matmul_serial's order: visit(j0, nc, p0, kc, block's size).
template <class T, class Visit>
void for_b_blocks(const kernels::gemm_ops<T>& ops, std::size_t k, std::size_t n, Visit visit) {
    const blocking<T> bl(ops);
    for (std::size_t j0 = 0; j0 < n; j0 += bl.nc) {
        const std::size_t nc = std::min(bl.nc, n - j0);
        for (std::size_t p0 = 0; p0 < k; p0 += kc_max) {
            const std::size_t kc = std::min(kc_max, k - p0);
            visit(j0, nc, p0, kc, kernels::strips(nc, ops.nr) * ops.nr * kc);
        }
    }
}

// The kernels' pack_b for a plain B (B(p, j) at b[p·ldb + j]) as whole-strip copies of
// nr contiguous values per step of k (zero padding only in a cut strip). Same values.
template <class T>
void pack_b_plain(std::size_t nr, std::size_t kc, std::size_t nc, const T* b, std::size_t ldb, T* dst) {
    for (std::size_t j0 = 0; j0 < nc; j0 += nr, dst += kc * nr) {
        const std::size_t cols = std::min(nr, nc - j0);
        const std::size_t bytes = cols * sizeof(T);
        for (std::size_t p = 0; p < kc; ++p) {
            T* out = dst + p * nr;
            const T* in = b + p * ldb + j0;
            if (bytes == 128)  // a fixed size is copied inline: not a library call per row
                std::memcpy(out, in, 128);
            else if (bytes == 64)
                std::memcpy(out, in, 64);
            else
                std::memcpy(out, in, bytes);
            for (std::size_t j = cols; j < nr; ++j) out[j] = T(0);
        }
    }
}

template <class T>
void pack_once_any(packed_matrix<T>& out, bool tb, std::size_t k, std::size_t n, const T* b, std::size_t ldb) {
    const auto& ops = kernels::active().ops<T>();
    std::size_t total = 0;
    for_b_blocks(ops, k, n, [&](std::size_t, std::size_t, std::size_t, std::size_t, std::size_t size) { total += size; });
    out.k = k;
    out.n = n;
    out.data.resize(total);  // [blocks…]: no reallocation when the sizes repeat
    T* dst = out.data.data();
    for_b_blocks(ops, k, n, [&](std::size_t j0, std::size_t nc, std::size_t p0, std::size_t kc, std::size_t size) {
        if (tb)
            ops.pack_b(tb, kc, nc, b + j0 * ldb + p0, ldb, dst);
        else
            pack_b_plain(ops.nr, kc, nc, b + p0 * ldb + j0, ldb, dst);
        dst += size;
    });
}

// The kernels' pack_a for a transposed A (A(i, p) at a[p·lda + i]): each step of k is a
// copy of mr contiguous values, done as one fixed-size copy for whole strips of 8 (the
// AVX-512 tile) instead of value by value. Same values, so the same bits downstream.
template <class T>
void pack_a_transposed(std::size_t mr, std::size_t mc, std::size_t kc, const T* a, std::size_t lda, T* dst) {
    for (std::size_t i0 = 0; i0 < mc; i0 += mr, dst += kc * mr) {
        const std::size_t rows = std::min(mr, mc - i0);
        const T* col = a + i0;
        if (rows == 8 && mr == 8) {
            for (std::size_t p = 0; p < kc; ++p) std::memcpy(dst + p * 8, col + p * lda, 8 * sizeof(T));
            continue;
        }
        for (std::size_t p = 0; p < kc; ++p)
            for (std::size_t i = 0; i < mr; ++i) dst[p * mr + i] = i < rows ? col[p * lda + i] : T(0);
    }
}

// matmul_serial's loops with B's blocks taken from pb: the same kernels, blocks and order.
template <class T>
void matmul_packed_any(bool ta, std::size_t m, T alpha, const T* a, std::size_t lda, const packed_matrix<T>& pb,
                       T beta, T* c, std::size_t ldc) {
    const auto& ops = kernels::active().ops<T>();
    const blocking<T> bl(ops);
    auto& buf = thread_buffers<T>();
    if (ta) buf.a.resize(kernels::strips(std::min(m, bl.mc), ops.mr) * ops.mr * std::min(pb.k, kc_max));  // [⌈mc/mr⌉, kc, mr]
    const T* packed = pb.data.data();
    for_b_blocks(ops, pb.k, pb.n, [&](std::size_t j0, std::size_t nc, std::size_t p0, std::size_t kc, std::size_t size) {
        const T block_beta = p0 == 0 ? beta : T(1);  // later k blocks add to C
        for (std::size_t i0 = 0; i0 < m; i0 += bl.mc) {
            const std::size_t mc = std::min(bl.mc, m - i0);
            T* cb = c + i0 * ldc + j0;
            if (!ta) {
                ops.block_rows(mc, nc, kc, a + i0 * lda + p0, lda, packed, alpha, block_beta, cb, ldc);
                continue;
            }
            pack_a_transposed(ops.mr, mc, kc, a + p0 * lda + i0, lda, buf.a.data());
            ops.block(mc, nc, kc, buf.a.data(), packed, alpha, block_beta, cb, ldc);
        }
        packed += size;
    });
}

// C = beta · C when there is nothing to sum (k = 0); beta = 0 writes zeros.
template <class T>
void scale_c(std::size_t m, std::size_t n, T beta, T* c, std::size_t ldc) {
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
}

std::atomic<unsigned> configured_threads{0};  // 0 = the machine's hardware threads

// Below this many multiply-adds a product runs on its caller: waking a thread costs more.
constexpr double parallel_work = 1 << 20;

template <class T>
void matmul_any(bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, T alpha, const T* a,
                std::size_t lda, const T* b, std::size_t ldb, T beta, T* c, std::size_t ldc) {
    if (m == 0 || n == 0) return;
    if (k == 0) return scale_c(m, n, beta, c, ldc);
    const unsigned threads = matmul_threads();
    const auto& ops = kernels::active().ops<T>();
    const std::size_t row_tiles = kernels::strips(m, ops.mr), col_tiles = kernels::strips(n, ops.nr);
    const bool by_rows = row_tiles >= col_tiles;
    const std::size_t tiles = by_rows ? row_tiles : col_tiles;
    if (threads < 2 || tiles < 2 || double(m) * double(n) * double(k) < parallel_work)
        return matmul_serial(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    // Slice s of the tiles is [s·tiles/t, (s+1)·tiles/t): whole tiles, so no entry moves to another tile shape.
    const std::size_t slices = std::min<std::size_t>(threads, tiles);
    const bool pooled = run_on_shared_pool(threads, slices, [&](std::size_t begin, std::size_t end) {
        for (std::size_t s = begin; s < end; ++s) {
            const std::size_t t0 = s * tiles / slices, t1 = (s + 1) * tiles / slices;
            if (by_rows) {
                const std::size_t r0 = t0 * ops.mr, r1 = std::min(m, t1 * ops.mr);
                matmul_serial(ta, tb, r1 - r0, n, k, alpha, ta ? a + r0 : a + r0 * lda, lda, b, ldb, beta,
                              c + r0 * ldc, ldc);
            } else {
                const std::size_t c0 = t0 * ops.nr, c1 = std::min(n, t1 * ops.nr);
                matmul_serial(ta, tb, m, c1 - c0, k, alpha, a, lda, tb ? b + c0 * ldb : b + c0, ldb, beta,
                              c + c0, ldc);
            }
        }
    });
    if (!pooled) matmul_serial(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);  // the pool was busy
}

// ---- one row -------------------------------------------------------------------------

// matmul_serial's k blocks for one row, B in place: the same sums, alpha and beta steps.
template <class T>
void matmul_row_any(std::size_t n, std::size_t k, T alpha, const T* a, const T* b, std::size_t ldb, T beta, T* c) {
    if (n == 0) return;
    if (k == 0) return scale_c(1, n, beta, c, n);
    const auto& ops = kernels::active().ops<T>();
    const std::size_t g = ops.row_group;
    for (std::size_t p0 = 0; p0 < k; p0 += kc_max) {
        const std::size_t kc = std::min(kc_max, k - p0);
        const T block_beta = p0 == 0 ? beta : T(1);  // later k blocks add to C
        for (std::size_t j0 = 0; j0 < n; j0 += g)
            ops.row_in_place(kc, std::min(g, n - j0), a + p0, b + p0 * ldb + j0, ldb, alpha, block_beta, c + j0);
    }
}

template <class T>
row_packed_matrix<T> pack_rows_any(T* dst, bool tb, std::size_t k, std::size_t n, const T* b, std::size_t ldb) {
    row_packed_matrix<T> out;
    out.k = k, out.n = n, out.group = kernels::active().ops<T>().row_group, out.data = dst;
    const std::size_t g = out.group;
    for (std::size_t j0 = 0; j0 < n; j0 += g, dst += k * g) {  // one group: [k, g]
        const std::size_t cols = std::min(g, n - j0);
        if (!tb) {
            for (std::size_t p = 0; p < k; ++p) {
                std::memcpy(dst + p * g, b + p * ldb + j0, cols * sizeof(T));
                std::fill(dst + p * g + cols, dst + (p + 1) * g, T(0));
            }
            continue;
        }
        for (std::size_t j = 0; j < g; ++j)  // column j0 + j of op(B) is row j0 + j of B, read in order
            for (std::size_t p = 0; p < k; ++p) dst[p * g + j] = j < cols ? b[(j0 + j) * ldb + p] : T(0);
    }
    return out;
}

template <class T>
void matmul_row_packed_any(const row_packed_matrix<T>& b, std::size_t g0, std::size_t g1, T alpha, const T* a, T beta,
                           T* c) {
    const auto& ops = kernels::active().ops<T>();
    const std::size_t g = b.group;
    for (std::size_t i = g0; i < g1; ++i) {
        const std::size_t j0 = i * g, cols = std::min(g, b.n - j0);
        if (b.k == 0) {
            scale_c(1, cols, beta, c + j0, cols);
            continue;
        }
        const T* group = b.data + i * b.k * g;  // [k, g]
        for (std::size_t p0 = 0; p0 < b.k; p0 += kc_max)
            ops.row_packed(std::min(kc_max, b.k - p0), cols, a + p0, group + p0 * g, alpha, p0 == 0 ? beta : T(1), c + j0);
    }
}

}  // namespace

template <class T>
std::size_t row_group() {
    return kernels::active().ops<T>().row_group;
}
template std::size_t row_group<float>();
template std::size_t row_group<double>();

template <class T>
std::size_t row_packed_size(std::size_t k, std::size_t n) {
    return kernels::strips(n, row_group<T>()) * row_group<T>() * k;
}
template std::size_t row_packed_size<float>(std::size_t, std::size_t);
template std::size_t row_packed_size<double>(std::size_t, std::size_t);

void matmul_row(std::size_t n, std::size_t k, float alpha, const float* a, const float* b, std::size_t ldb, float beta,
                float* c) {
    matmul_row_any(n, k, alpha, a, b, ldb, beta, c);
}
void matmul_row(std::size_t n, std::size_t k, double alpha, const double* a, const double* b, std::size_t ldb,
                double beta, double* c) {
    matmul_row_any(n, k, alpha, a, b, ldb, beta, c);
}
row_packed_matrix<float> pack_rows(float* dst, bool trans_b, std::size_t k, std::size_t n, const float* b,
                                   std::size_t ldb) {
    return pack_rows_any(dst, trans_b, k, n, b, ldb);
}
row_packed_matrix<double> pack_rows(double* dst, bool trans_b, std::size_t k, std::size_t n, const double* b,
                                    std::size_t ldb) {
    return pack_rows_any(dst, trans_b, k, n, b, ldb);
}
void matmul_row_packed(const row_packed_matrix<float>& b, std::size_t g0, std::size_t g1, float alpha, const float* a,
                       float beta, float* c) {
    matmul_row_packed_any(b, g0, g1, alpha, a, beta, c);
}
void matmul_row_packed(const row_packed_matrix<double>& b, std::size_t g0, std::size_t g1, double alpha,
                       const double* a, double beta, double* c) {
    matmul_row_packed_any(b, g0, g1, alpha, a, beta, c);
}

unsigned matmul_threads() {
    const unsigned t = configured_threads.load();
    if (t > 0) return t;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw > 0 ? hw : 1;
}

void set_matmul_threads(unsigned threads) { configured_threads.store(threads); }

void matmul(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
            std::size_t lda, const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc) {
    matmul_any(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void pack_once(packed_matrix<float>& out, bool trans_b, std::size_t k, std::size_t n, const float* b,
               std::size_t ldb) {
    pack_once_any(out, trans_b, k, n, b, ldb);
}
void pack_once(packed_matrix<double>& out, bool trans_b, std::size_t k, std::size_t n, const double* b,
               std::size_t ldb) {
    pack_once_any(out, trans_b, k, n, b, ldb);
}

void matmul_packed(bool trans_a, std::size_t m, float alpha, const float* a, std::size_t lda,
                   const packed_matrix<float>& b, float beta, float* c, std::size_t ldc) {
    if (m == 0 || b.n == 0) return;
    if (b.k == 0) return scale_c(m, b.n, beta, c, ldc);
    matmul_packed_any(trans_a, m, alpha, a, lda, b, beta, c, ldc);
}
void matmul_packed(bool trans_a, std::size_t m, double alpha, const double* a, std::size_t lda,
                   const packed_matrix<double>& b, double beta, double* c, std::size_t ldc) {
    if (m == 0 || b.n == 0) return;
    if (b.k == 0) return scale_c(m, b.n, beta, c, ldc);
    matmul_packed_any(trans_a, m, alpha, a, lda, b, beta, c, ldc);
}

void matmul(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, double alpha,
            const double* a, std::size_t lda, const double* b, std::size_t ldb, double beta, double* c,
            std::size_t ldc) {
    matmul_any(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace attn
