// bench/bench_peak.cpp — the machine's measured peak (bench_peak.hpp).
#include "bench_peak.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "core/kernels.hpp"

namespace attn::bench {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// GFLOP/s of the FMA loop on `threads` threads at once, best of `reps`.
template <class T>
double fma_gflops(unsigned threads, int reps) {
    const auto& ops = kernels::active().ops<T>();
    const std::size_t steps = 4000000;
    double best = 0;
    for (int r = 0; r < reps; ++r) {
        std::vector<std::thread> pool;
        std::vector<T> sink(threads);
        const auto t0 = std::chrono::steady_clock::now();
        for (unsigned t = 0; t < threads; ++t) pool.emplace_back([&, t] { sink[t] = ops.fma_loop(steps); });
        for (auto& th : pool) th.join();
        const double s = seconds_since(t0);
        best = std::max(best, double(threads) * double(steps) * double(ops.flops_per_fma_step) / s * 1e-9);
    }
    return best;
}

template <class T>
double gemm_gflops(std::size_t n, int reps) {
    std::vector<T> a(n * n), b(n * n), c(n * n);  // [n, n] each
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = T((i % 7) * 0.25), b[i] = T((i % 5) * 0.5);
    auto once = [&] {
        const int m = static_cast<int>(n);
        if constexpr (sizeof(T) == sizeof(float))
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, a.data(), m, b.data(), m, 0.0f, c.data(), m);
        else
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0, a.data(), m, b.data(), m, 0.0, c.data(), m);
    };
    once();
    double best = 0;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        once();
        best = std::max(best, 2.0 * double(n) * double(n) * double(n) / seconds_since(t0) * 1e-9);
    }
    return best;
}

// Runs `self --blas-gemm` with OPENBLAS_CORETYPE = core (empty: unset) and reads its line.
bool blas_child(const std::string& self, const std::string& core, unsigned threads, bool quick, blas_gemm& out) {
    int fds[2];
    if (pipe(fds) != 0) return false;
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        if (core.empty()) unsetenv("OPENBLAS_CORETYPE");
        else setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
        const std::string t = std::to_string(threads);
        execl(self.c_str(), self.c_str(), "--blas-gemm", t.c_str(), quick ? "quick" : "full", static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return false;
    }
    char buf[256] = {};
    std::FILE* in = fdopen(fds[0], "r");
    const bool got = in && std::fgets(buf, sizeof buf, in) != nullptr;
    if (in) std::fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
    char name[64] = {};
    if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        std::sscanf(buf, "%63s %lf %lf", name, &out.f32, &out.f64) != 3)
        return false;
    out.core = name;
    return true;
}

}  // namespace

std::vector<std::string> runnable_core_types() {
    __builtin_cpu_init();
    std::vector<std::string> cores = {"Prescott"};
    if (__builtin_cpu_supports("avx")) cores.push_back("Sandybridge");
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) cores.push_back("Haswell");
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd")) {
        cores.push_back("SkylakeX");
        if (__builtin_cpu_supports("avx512bf16")) cores.push_back("Cooperlake");
    }
    return cores;
}

double machine_peak::f32() const {
    double best = fma_f32;
    for (const auto& b : blas) best = std::max(best, b.f32);
    return best;
}
double machine_peak::f64() const {
    double best = fma_f64;
    for (const auto& b : blas) best = std::max(best, b.f64);
    return best;
}
std::string machine_peak::best_core() const {
    const blas_gemm* best = nullptr;
    for (const auto& b : blas)
        if (!best || b.f32 > best->f32) best = &b;
    return best ? best->core : default_core;
}

machine_peak measure_peak(const std::string& self, unsigned threads, bool quick) {
    machine_peak p;
    p.kernels = kernels::active().name;
    p.fma_f32 = fma_gflops<float>(threads, quick ? 2 : 5);
    p.fma_f64 = fma_gflops<double>(threads, quick ? 2 : 5);
    p.default_core = openblas_get_corename();
    for (const std::string& core : runnable_core_types()) {
        blas_gemm g;
        // OpenBLAS falls back silently on a name it does not take: keep only what it ran.
        if (blas_child(self, core, threads, quick, g) && g.core == core) p.blas.push_back(g);
    }
    return p;
}

void remeasure_fma(machine_peak& p, unsigned threads) {
    p.fma_f32 = std::max(p.fma_f32, fma_gflops<float>(threads, 2));
    p.fma_f64 = std::max(p.fma_f64, fma_gflops<double>(threads, 2));
}

int run_blas_gemm_child(unsigned threads, bool quick) {
    openblas_set_num_threads(static_cast<int>(threads));
    const std::size_t n = quick ? 1024 : 2048;
    const double f32 = gemm_gflops<float>(n, quick ? 3 : 5), f64 = gemm_gflops<double>(n, quick ? 3 : 5);
    std::printf("%s %.3f %.3f\n", openblas_get_corename(), f32, f64);
    return 0;
}

}  // namespace attn::bench
