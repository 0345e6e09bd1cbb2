// bench/bench_cases.hpp — the benchmark's cases, their inputs (generated once from a
// fixed seed, written as .npy for the peers) and the timing of our fast forward.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/fast_attention.hpp"

namespace attn::bench {

struct bench_case {
    std::string name;   // e.g. "single n=512"
    std::string slug;   // file-name part, e.g. "single512"
    std::size_t heads, n_q, n_k, d;
    double gflop() const { return 4.0 * double(heads) * double(n_q) * double(n_k) * double(d) * 1e-9; }
};

// The sizes of issue 6: single head n ∈ {128, 512, 1024, 2048}, d = 64; 8 heads of
// d = 64 (d_model = 512) at n = 512; cross-attention n_q = 64, n_k = 2048.
std::vector<bench_case> standard_cases();

// Milliseconds per call, one entry per timed call.
struct samples {
    std::vector<double> ms;
    double median() const;  // NaN when empty
};

// Q, K, V per head, generated from the case index (standard normal, own PRNG so the
// numbers are the same everywhere); float inputs are the double inputs rounded.
template <class T>
struct case_inputs {
    std::vector<fast_matrix<T>> q, k, v;  // heads × [n_q, d], [n_k, d], [n_k, d]
};
template <class T>
case_inputs<T> make_inputs(const bench_case& c, unsigned seed);

// Writes q.npy, k.npy, v.npy as [heads, n, d] arrays under dir/<slug>_<dtype>_.
template <class T>
void write_npy(const case_inputs<T>& in, const std::string& prefix);

// Times our forward over every head: warm-up, then calls until budget_s is spent
// (at least min_reps). `outputs` receives the per-head outputs of the last call.
template <class T>
void time_ours(const case_inputs<T>& in, unsigned threads, double budget_s, std::size_t min_reps,
               samples& keep_all, samples& output_only, fast_stage_times& stage_sum,
               std::vector<fast_matrix<T>>& outputs);

}  // namespace attn::bench
