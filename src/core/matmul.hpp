// core/matmul.hpp — the one general matrix product of attn's fast paths and of the
// model floor: C = alpha · op(A) · op(B) + beta · C, row-major, in float or double.
//
//   a: [m, k] (or [k, m] when trans_a), leading dimension lda
//   b: [k, n] (or [n, k] when trans_b), leading dimension ldb
//   c: [m, n], leading dimension ldc
//
// Every caller goes through here, so the kernels behind it can change without
// touching them: attn's own register-blocked kernels (core/kernels.hpp), the widest
// the CPU runs (AVX-512, AVX2 + FMA, or generic), whatever the BLAS build detects.
// The result never depends on the number of threads: work is split over rows and
// columns of C only, each entry's sum over k runs in one fixed order (training's
// "same seed, same bytes" rests on this). It may differ in the last bits between
// kernel sets (FMA or not), as BLAS results differ between its kernels.
#pragma once

#include <cstddef>
#include <vector>

namespace attn {

// One overload per element type (T deduced from the pointers).
void matmul(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
            const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
            std::size_t ldc);
void matmul(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, double alpha,
            const double* a, std::size_t lda, const double* b, std::size_t ldb, double beta, double* c,
            std::size_t ldc);

// op(B) [k, n] packed once in matmul's own blocks, for many products that share it
// (a linear layer's weights across its row blocks, a gradient across the weight's row
// blocks): matmul_packed(…, b, …) gives the same bits as matmul with that B, without
// packing it again per call. Runs on the calling thread; b may be read by many threads.
// Packed for the kernel set active when pack_once ran.
template <class T>
struct packed_matrix {
    std::size_t k = 0, n = 0;
    std::vector<T> data;  // matmul's [kc, nc] blocks in the order it visits them
};
void pack_once(packed_matrix<float>& out, bool trans_b, std::size_t k, std::size_t n, const float* b,
               std::size_t ldb);
void pack_once(packed_matrix<double>& out, bool trans_b, std::size_t k, std::size_t n, const double* b,
               std::size_t ldb);
// C [m, n] = alpha · op(A) · B + beta · C with B packed by pack_once.
void matmul_packed(bool trans_a, std::size_t m, float alpha, const float* a, std::size_t lda,
                   const packed_matrix<float>& b, float beta, float* c, std::size_t ldc);
void matmul_packed(bool trans_a, std::size_t m, double alpha, const double* a, std::size_t lda,
                   const packed_matrix<double>& b, double beta, double* c, std::size_t ldc);

// ---- one row: decoding's matrix-vector products ---------------------------------------
// matmul with m = 1 computes its row in a tile of mr rows; these give the same bits
// (each entry's sum over k in blocks of 256, in order, then the same alpha/beta step)
// computing it once, the columns in groups of row_group() (8 vectors) whose chains run
// side by side. On the calling thread.
//
// c [n] = alpha · a [k] · B + beta · c with B [k, n] read in place, row p at b + p·ldb.
void matmul_row(std::size_t n, std::size_t k, float alpha, const float* a, const float* b, std::size_t ldb, float beta,
                float* c);
void matmul_row(std::size_t n, std::size_t k, double alpha, const double* a, const double* b, std::size_t ldb,
                double beta, double* c);

// op(B) [k, n] laid out for matmul_row_packed: column group g (row_group() columns, the
// last zero-padded) at data + g·k·row_group(), as k rows of row_group() values, so a
// product reads each group as one sequential stream. The data lives in the caller's
// buffer of row_packed_size(k, n) values (e.g. one for all of a model's weights).
// Packed for the kernel set active when pack_rows ran.
template <class T>
struct row_packed_matrix {
    std::size_t k = 0, n = 0, group = 0;  // group: columns per group
    const T* data = nullptr;              // [⌈n/group⌉, k, group], not owned
    std::size_t groups() const { return group == 0 ? 0 : (n + group - 1) / group; }
};
template <class T>
std::size_t row_group();  // columns per group of the active kernel set
template <class T>
std::size_t row_packed_size(std::size_t k, std::size_t n);
// Packs op(B) (B(p, j) at b[p·ldb + j], or b[j·ldb + p] when trans_b) into dst.
row_packed_matrix<float> pack_rows(float* dst, bool trans_b, std::size_t k, std::size_t n, const float* b,
                                   std::size_t ldb);
row_packed_matrix<double> pack_rows(double* dst, bool trans_b, std::size_t k, std::size_t n, const double* b,
                                    std::size_t ldb);
// c [columns of groups g0 … g1 − 1] = alpha · a [k] · B + beta · c (c indexed by column
// from 0; groups may be shared out between threads, the bits never change).
void matmul_row_packed(const row_packed_matrix<float>& b, std::size_t g0, std::size_t g1, float alpha, const float* a,
                       float beta, float* c);
void matmul_row_packed(const row_packed_matrix<double>& b, std::size_t g0, std::size_t g1, double alpha,
                       const double* a, double beta, double* c);

// Threads a large product uses (the caller included): set_matmul_threads(0), the
// default, means the machine's hardware threads. Never changes a result's bits.
unsigned matmul_threads();
void set_matmul_threads(unsigned threads);

}  // namespace attn
