// core/shape_check.hpp — the one place that checks that Q, K, V, a mask and a bias
// chain, shared by the reference path (attention.cpp) and the fast path
// (fast_attention.cpp) so both refuse the same inputs with the same words.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>

namespace attn {

struct attention_shapes {
    std::size_t n_q, d_q;  // Q [n_q, d_k]
    std::size_t n_k, d_k;  // K [n_k, d_k]
    std::size_t n_v, d_v;  // V [n_k, d_v]
    std::optional<std::pair<std::size_t, std::size_t>> mask;  // [n_q, n_k] when given
    std::optional<std::pair<std::size_t, std::size_t>> bias;  // [n_q, n_k] when given
};

// Throws shape_error naming both shapes by their axis names, e.g.
// "K has d_k = 3 but Q has d_k = 4 (Q [n_q=5, d_k=4], K [n_k=5, d_k=3], V [n_k=5, d_v=4])".
void check_attention_shapes(const attention_shapes& s);

}  // namespace attn
