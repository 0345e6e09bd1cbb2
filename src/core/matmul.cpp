// core/matmul.cpp — matmul() through the BLAS (OpenBLAS). A first implementation:
// issue 23 replaces it with kernels whose speed does not hang on OpenBLAS's CPU table.
#include "core/matmul.hpp"

#include <cblas.h>

namespace attn {

namespace {
CBLAS_TRANSPOSE flag(bool trans) { return trans ? CblasTrans : CblasNoTrans; }
int as_int(std::size_t v) { return static_cast<int>(v); }
}  // namespace

void matmul(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, float alpha,
                   const float* a, std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
                   std::size_t ldc) {
    if (m == 0 || n == 0) return;
    cblas_sgemm(CblasRowMajor, flag(trans_a), flag(trans_b), as_int(m), as_int(n), as_int(k), alpha, a,
                as_int(lda), b, as_int(ldb), beta, c, as_int(ldc));
}

void matmul(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, double alpha,
                    const double* a, std::size_t lda, const double* b, std::size_t ldb, double beta, double* c,
                    std::size_t ldc) {
    if (m == 0 || n == 0) return;
    cblas_dgemm(CblasRowMajor, flag(trans_a), flag(trans_b), as_int(m), as_int(n), as_int(k), alpha, a,
                as_int(lda), b, as_int(ldb), beta, c, as_int(ldc));
}

}  // namespace attn
