// core/random_tensors.hpp — matrices filled from attn's own PRNG, so lessons (lesson 02's
// random queries and keys) and per-student exercise variants get the same numbers on
// every compiler. Row-major fill order: element (0,0), (0,1), … — part of the contract,
// since changing it changes every generated variant.
#pragma once

#include "core/prng.hpp"
#include "core/types.hpp"

namespace attn {

matrix normal_matrix(prng& g, std::size_t rows, std::size_t cols, double mean = 0.0, double stddev = 1.0);
matrix uniform_matrix(prng& g, std::size_t rows, std::size_t cols, double lo = 0.0, double hi = 1.0);
// Entries k/2 in [lo, hi]: small integers and halves, friendly to pencil and paper.
matrix halves_matrix(prng& g, std::size_t rows, std::size_t cols, double lo = -2.0, double hi = 2.0);

// Why divide by √d_k (seed 000 §3.4): dot products q·k of vectors with independent
// N(0, 1) entries have mean 0 and standard deviation √d. `samples` pairs are drawn.
struct dot_product_stats {
    std::size_t d = 0, samples = 0;
    double mean = 0.0;           // ≈ 0
    double stddev = 0.0;         // ≈ √d  (divides by samples)
    double scaled_stddev = 0.0;  // stddev of q·k/√d ≈ 1
    double max_abs = 0.0;        // largest |q·k| seen
};
dot_product_stats measure_dot_products(prng& g, std::size_t d, std::size_t samples);

}  // namespace attn
