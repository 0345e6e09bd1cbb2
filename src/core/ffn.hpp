// core/ffn.hpp — the position-wise feed-forward network (seed 000 eq. 17, seed 004 Q2c,
// seed 002's "FFN is broadcast to each token, independently"):
//   hidden_pre = X W_1 + b_1      // [n, d_ff]
//   hidden     = act(hidden_pre)  // [n, d_ff]   ReLU, or GELU (tanh approximation)
//   output     = hidden W_2 + b_2 // [n, d]
// Rows are tokens, so W_1 is [d, d_ff] (seed 000 writes W_1 ∈ R^{5d×d} for column
// vectors: the same map transposed). d_ff is typically 4d (Vaswani) or 5d (seed 000).
#pragma once

#include "core/types.hpp"

namespace attn {

enum class activation { relu, gelu_tanh };

struct ffn_weights {
    matrix w1;  // [d, d_ff]
    vector b1;  // [d_ff] or empty = no bias
    matrix w2;  // [d_ff, d_out]
    vector b2;  // [d_out] or empty = no bias
    activation act = activation::relu;
};

struct ffn_steps {
    matrix input;       // [n, d]
    matrix hidden_pre;  // [n, d_ff]
    matrix hidden;      // [n, d_ff]
    matrix output;      // [n, d_out]
};

ffn_steps feed_forward(const matrix& x, const ffn_weights& w);

// ReLU and the tanh form of GELU: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
double apply_activation(activation a, double x);

}  // namespace attn
