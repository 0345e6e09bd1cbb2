// core/positional.hpp — position representations that are added to the token vectors
// (seed 000 §2.2, eq. 12: x̃_i = P_i + x_i). Self-attention alone cannot tell "the oven
// cooked the bread so" from "the bread cooked the oven so"; adding P makes it can.
//   sinusoidal (Vaswani et al. 2017):  P[pos, 2i]   = sin(pos / base^(2i/d))
//                                      P[pos, 2i+1] = cos(pos / base^(2i/d)),  base = 10000
//   learned:  any [N, d] matrix P (N = the longest sequence the model accepts)
// sin, cos and pow come from libm: equal to the last bit on glibc, possibly not elsewhere.
#pragma once

#include "core/types.hpp"

namespace attn {

// [n, d] rows offset … offset + n − 1 of the sinusoidal table.
matrix sinusoidal_positions(std::size_t n, std::size_t d, double base = 10000.0, std::size_t offset = 0);

struct positional_steps {
    matrix tokens;     // [n, d] the non-contextual embeddings x_i
    matrix positions;  // [n, d] the rows P_offset … P_offset+n−1 that were added
    matrix output;     // [n, d] x̃ = x + P
};

// Adds rows offset … offset + n − 1 of p ([N, d]) to x ([n, d]). Throws shape_error when
// the widths differ or N < offset + n ("the sequence is longer than the position table").
positional_steps add_positions(const matrix& x, const matrix& p, std::size_t offset = 0);

}  // namespace attn
