// bench/bench_cases.cpp — cases, seeded inputs, .npy files for the peers, and the
// timing loop for our fast forward.
#include "bench_cases.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

#include <xtensor/xnpy.hpp>
#include <xtensor/xview.hpp>

#include "core/fast_heads.hpp"

namespace attn::bench {

std::vector<bench_case> standard_cases() {
    return {
        {"single n=128", "single128", 1, 128, 128, 64},
        {"single n=512", "single512", 1, 512, 512, 64},
        {"single n=1024", "single1024", 1, 1024, 1024, 64},
        {"single n=2048", "single2048", 1, 2048, 2048, 64},
        {"8 heads n=512", "heads8_512", 8, 512, 512, 64},
        {"cross 64x2048", "cross64x2048", 1, 64, 2048, 64},
    };
}

double samples::median() const {
    if (ms.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::vector<double> s = ms;
    std::sort(s.begin(), s.end());
    const std::size_t m = s.size() / 2;
    return s.size() % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}

namespace {

// splitmix64: a tiny PRNG with the same sequence on every platform.
struct splitmix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
    double normal() {  // Box–Muller; 1 − u keeps the log finite
        const double u = 1.0 - uniform(), v = uniform();
        return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
    }
};

template <class T>
fast_matrix<T> random_matrix(splitmix64& g, std::size_t rows, std::size_t cols) {
    fast_matrix<T> m({rows, cols});  // [rows, cols]
    for (auto& x : m) x = static_cast<T>(g.normal());
    return m;
}

template <class T>
void dump_heads(const std::vector<fast_matrix<T>>& heads, const std::string& path) {
    const std::size_t h = heads.size(), r = heads[0].shape(0), c = heads[0].shape(1);
    xt::xtensor<T, 3> all({h, r, c});  // [heads, rows, cols]
    for (std::size_t i = 0; i < h; ++i) xt::view(all, i, xt::all(), xt::all()) = heads[i];
    xt::dump_npy(path, all);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

template <class T>
case_inputs<T> make_inputs(const bench_case& c, unsigned seed) {
    splitmix64 g{seed};
    case_inputs<T> in;
    for (std::size_t h = 0; h < c.heads; ++h) {
        in.q.push_back(random_matrix<T>(g, c.n_q, c.d));
        in.k.push_back(random_matrix<T>(g, c.n_k, c.d));
        in.v.push_back(random_matrix<T>(g, c.n_k, c.d));
    }
    return in;
}

template <class T>
void write_npy(const case_inputs<T>& in, const std::string& prefix) {
    dump_heads(in.q, prefix + "q.npy");
    dump_heads(in.k, prefix + "k.npy");
    dump_heads(in.v, prefix + "v.npy");
}

template <class T>
void time_ours(const case_inputs<T>& in, unsigned threads, double budget_s, std::size_t min_reps,
               samples& keep_all, samples& output_only, fast_stage_times& stage_sum,
               std::vector<fast_matrix<T>>& outputs) {
    const std::size_t heads = in.q.size();
    for (keep_mode mode : {keep_mode::all_stages, keep_mode::output_only}) {
        std::vector<fast_steps<T>> steps(heads);  // one workspace per head, reused by every call
        std::vector<fast_head<T>> all;            // every head in one call: small heads run side by side
        for (std::size_t h = 0; h < heads; ++h) all.push_back({&in.q[h], &in.k[h], &in.v[h], &steps[h]});
        fast_options<T> o;
        o.keep = mode;
        o.threads = threads;
        auto forward = [&] { fast_attention_heads(all, o); };
        forward();  // warm-up: allocates the workspaces, wakes BLAS threads
        forward();
        samples& out = mode == keep_mode::all_stages ? keep_all : output_only;
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t rep = 0; rep < min_reps || ms_since(start) < budget_s * 1e3; ++rep) {
            const auto t0 = std::chrono::steady_clock::now();
            forward();
            out.ms.push_back(ms_since(t0));
            if (mode == keep_mode::all_stages)
                for (const auto& s : steps) {
                    stage_sum.scores += s.times.scores;
                    stage_sum.softmax += s.times.softmax;
                    stage_sum.output += s.times.output;
                }
        }
        if (mode == keep_mode::all_stages) {
            outputs.clear();
            for (const auto& s : steps) outputs.push_back(s.output);
        }
    }
}

template case_inputs<float> make_inputs<float>(const bench_case&, unsigned);
template case_inputs<double> make_inputs<double>(const bench_case&, unsigned);
template void write_npy<float>(const case_inputs<float>&, const std::string&);
template void write_npy<double>(const case_inputs<double>&, const std::string&);
template void time_ours<float>(const case_inputs<float>&, unsigned, double, std::size_t, samples&, samples&,
                               fast_stage_times&, std::vector<fast_matrix<float>>&);
template void time_ours<double>(const case_inputs<double>&, unsigned, double, std::size_t, samples&, samples&,
                                fast_stage_times&, std::vector<fast_matrix<double>>&);

}  // namespace attn::bench
