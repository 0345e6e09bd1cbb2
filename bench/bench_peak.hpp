// bench/bench_peak.hpp — the peak of the machine the benchmark runs on, measured, not
// looked up: per dtype, the best of (1) an FMA-throughput loop of attn's widest kernel
// set on every thread and (2) the best GEMM the machine's OpenBLAS reaches with any core
// type it has that this CPU runs (each tried in a child process with OPENBLAS_CORETYPE
// set, since OpenBLAS reads it once, when it loads).
#pragma once

#include <string>
#include <vector>

namespace attn::bench {

struct blas_gemm {
    std::string core;           // as OpenBLAS names it (openblas_get_corename)
    double f32 = 0, f64 = 0;    // GFLOP/s of a square sgemm / dgemm
};

struct machine_peak {
    std::string kernels;              // attn's kernel set, e.g. "AVX-512"
    double fma_f32 = 0, fma_f64 = 0;  // GFLOP/s of the FMA loop on every thread
    std::string default_core;         // the core OpenBLAS picks in this environment
    std::vector<blas_gemm> blas;      // the default first, then every core type tried
    double f32() const;               // the peak: the best of all the above
    double f64() const;
    std::string best_core() const;    // the core type of the best sgemm
};

// The OpenBLAS core types this CPU can run, from the oldest (Prescott: SSE3) up.
std::vector<std::string> runnable_core_types();

// self = path of this executable (run again with --blas-gemm in the children).
machine_peak measure_peak(const std::string& self, unsigned threads, bool quick);

// The FMA loop again (between rounds): keeps the best, so a burst of load during the
// first measurement does not lower the peak and flatter the shares.
void remeasure_fma(machine_peak& p, unsigned threads);

// The child's side: sgemm and dgemm at n, best of reps; prints "core f32 f64".
int run_blas_gemm_child(unsigned threads, bool quick);

}  // namespace attn::bench
