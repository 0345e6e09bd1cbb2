// core/alibi.hpp — position through the scores instead of the inputs (seed 000 §2.2,
// eq. 13, after Press et al. 2022, "Attention with Linear Biases"):
//   α_i = softmax(k_{1:n} q_i + [−i, …, −1, 0, −1, …, −(n−1−i)])
// i.e. bias[i, j] = −slope · |i − j| with 0-based positions. (Seed 000 prints the last
// entry as −(n − i), which is the same bias written with 1-based i; the first entry −i
// is then off by one. Its OCR twin, seed 003, reads −(n − 1). −|i − j| is what both mean.)
// The bias goes into attention_options::bias and is added to the scaled scores before
// the mask. ALiBi proper gives each head its own slope: 2^(−8h/H) for h = 1 … H.
#pragma once

#include <vector>

#include "core/attention.hpp"
#include "core/types.hpp"

namespace attn {

// [n_q, n_k] −slope·|(i + offset) − j|: query i sits at position i + offset among the keys
// (offset > 0 when one new query attends over a KV cache).
matrix linear_distance_bias(std::size_t n_q, std::size_t n_k, double slope = 1.0, std::size_t offset = 0);

// [H] the geometric slopes of Press et al.: 2^(−8/H), 2^(−16/H), …, 2^(−8).
std::vector<double> alibi_slopes(std::size_t heads);

// One attention_options per head: base's mask, base's bias (if any) plus the head's
// distance bias, for
// multi_head_attention(x_q, x_kv, w, per_head).
std::vector<attention_options> alibi_options(std::size_t n_q, std::size_t n_k, const std::vector<double>& slopes,
                                             const attention_options& base = {}, std::size_t offset = 0);

}  // namespace attn
