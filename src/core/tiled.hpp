// core/tiled.hpp — the online softmax (Milakov & Gimelshein, 2018) and the tiled
// forward of FlashAttention (Dao et al., 2022) that it makes possible (lesson 16).
//
// The keys are cut into blocks of `tile` columns. For each query row, block by block:
//   s          = scaled (+ bias, masked) scores of the block       // [tile]
//   m_new      = max(m_old, max_j s_j)                             // running max
//   correction = exp(m_old − m_new)                                // rescales what came before
//   l_new      = l_old · correction + Σ_j exp(s_j − m_new)         // running sum
//   o_new      = o_old · correction + Σ_j exp(s_j − m_new) v_j     // [d_v] unnormalised output
// and at the end output = o / l. No [n_q, n_k] matrix is ever formed: the extra
// memory is the running max and sum of each query row, O(n), plus one block.
//
// Exactness: the same numbers up to rounding, not bit for bit. The scores are the
// same dot products summed in another order (the one-shot path uses BLAS, which may
// fuse multiply-adds); the one-shot form divides every weight by l and then sums
// weights·v, the tiled form sums exp·v and divides once; and a rescaled
// exp(s − m_old)·exp(m_old − m_new) is not the same double as exp(s − m_new).
// The difference is a few units in the last place (tests measure it ≤ 1e-14
// relative); printed to the lesson's 4 decimals the two are identical.
// skip_rescale = true reproduces the classic mistake of forgetting `correction`
// on the partial output (the grader names it).
#pragma once

#include <optional>

#include "core/attention.hpp"

namespace attn {

struct tiled_options {
    std::size_t tile = 2;                 // keys per block, ≥ 1
    std::optional<bool_matrix> mask;      // [n_q, n_k] attend polarity
    std::optional<matrix> bias;           // [n_q, n_k] added to the scaled scores
    std::optional<double> scale_divisor;  // absent = √d_k
    bool skip_rescale = false;            // the mistake: o is not multiplied by `correction`
};

struct tiled_steps {
    std::size_t tile = 2, blocks = 0;  // blocks = ⌈n_k / tile⌉
    double scale = 1.0;
    matrix running_max;     // [n_q, blocks] m after each block (−inf while nothing was visible)
    matrix correction;      // [n_q, blocks] exp(m_old − m_new) applied at each block (1 for the first)
    matrix running_sum;     // [n_q, blocks] l after each block
    tensor3 partial_output; // [blocks, n_q, d_v] o after each block, not yet divided by l
    matrix output;          // [n_q, d_v] o / l (0 for a row with no visible key)
    std::size_t extra_values = 0;  // numbers held besides Q, K, V and the output: 2·n_q + one block of scores
};

tiled_steps tiled_attention(const matrix& q, const matrix& k, const matrix& v, const tiled_options& options = {});

}  // namespace attn
