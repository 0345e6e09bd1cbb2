// tests/support/shared_example.hpp — the seed's shared "The cat sat on mat" inputs,
// written out once for the tests (the lessons hold their own copy as data).
#pragma once

#include <xtensor/xview.hpp>

#include "core/types.hpp"

namespace attn::testing {

inline matrix shared_q() {
    return {{1.0, 0.0, 1.0, 0.0}, {0.0, 2.0, 0.0, 1.0}, {1.0, 1.0, 1.0, 0.0}, {0.0, 0.0, 1.0, 1.0}, {1.0, 0.0, 0.0, 1.0}};
}
inline matrix shared_k() {
    return {{0.0, 1.0, 0.0, 1.0}, {1.0, 0.0, 1.0, 0.0}, {1.0, 1.0, 0.0, 0.0}, {0.0, 0.0, 1.0, 1.0}, {1.0, 0.0, 0.5, 0.5}};
}
inline matrix shared_v() {
    return {{1.0, 0.0, 0.0, 0.0}, {0.0, 1.0, 0.0, 0.0}, {0.0, 0.0, 1.0, 0.0}, {0.0, 0.0, 0.0, 1.0}, {0.5, 0.5, 0.5, 0.5}};
}
// Q ⊙ [1.2, 0.8, 1.1, 0.9]
inline matrix shared_q_dec() {
    matrix q = shared_q();
    const double scale[4] = {1.2, 0.8, 1.1, 0.9};
    for (std::size_t i = 0; i < q.shape(0); ++i)
        for (std::size_t j = 0; j < 4; ++j) q(i, j) *= scale[j];
    return q;
}

}  // namespace attn::testing
