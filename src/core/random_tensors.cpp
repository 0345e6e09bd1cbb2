// core/random_tensors.cpp — PRNG-filled matrices and the dot-product growth measurement.
#include "core/random_tensors.hpp"

#include <cmath>
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/internal_error.hpp"

namespace attn {

matrix normal_matrix(prng& g, std::size_t rows, std::size_t cols, double mean, double stddev) {
    matrix m({rows, cols});  // [rows, cols]
    for (double& v : m) v = g.normal(mean, stddev);
    return m;
}

matrix uniform_matrix(prng& g, std::size_t rows, std::size_t cols, double lo, double hi) {
    matrix m({rows, cols});  // [rows, cols]
    for (double& v : m) v = g.uniform(lo, hi);
    return m;
}

matrix halves_matrix(prng& g, std::size_t rows, std::size_t cols, double lo, double hi) {
    matrix m({rows, cols});  // [rows, cols]
    for (double& v : m) v = g.pick_halves(lo, hi);
    return m;
}

dot_product_stats measure_dot_products(prng& g, std::size_t d, std::size_t samples) {
    if (d == 0 || samples == 0) throw internal_error("measure_dot_products: need d ≥ 1 and samples ≥ 1");
    dot_product_stats s;
    s.d = d;
    s.samples = samples;
    double sum = 0.0, sum_sq = 0.0;
    for (std::size_t i = 0; i < samples; ++i) {
        // Draw q then k, entry by entry, so the sequence is fixed by (seed, d, samples).
        double dot = 0.0;
        std::vector<double> q(d);
        for (double& x : q) x = g.normal();
        for (std::size_t j = 0; j < d; ++j) dot += q[j] * g.normal();
        sum += dot;
        sum_sq += dot * dot;
        s.max_abs = std::max(s.max_abs, std::fabs(dot));
    }
    const double n = static_cast<double>(samples);
    s.mean = sum / n;
    s.stddev = std::sqrt(std::max(0.0, sum_sq / n - s.mean * s.mean));
    s.scaled_stddev = s.stddev / std::sqrt(static_cast<double>(d));
    return s;
}

}  // namespace attn
