// core/stacking.hpp — why attention is more than a linear layer, and why stacking it is
// not enough without a nonlinearity (seed 004 Q3, seed 000 §2.3 eq. 14–16).
//   identity projections, no softmax, no scaling:  H = (X Xᵀ) X        (seed 004 Q3a)
//     X Xᵀ holds every pairwise dot product x_iᵀ x_j: tokens mix, and H is cubic in X.
//   two attention layers with no nonlinearity between them (rows = tokens):
//     H₁ = A₁ X W_V1,   H₂ = A₂ H₁ W_V2 = (A₂ A₁) X (W_V1 W_V2) = A* X V*
//     A* = A₂ A₁ is again row-stochastic, V* = W_V1 W_V2: one attention-like layer.
//     (Seed 000 eq. 15 writes α*_ij = α_jk Σ_j α_ij; the sum belongs around the
//     product, α*_ik = Σ_j α_ij α_jk, which is the matrix product A₂ A₁.)
#pragma once

#include "core/attention.hpp"
#include "core/types.hpp"

namespace attn {

struct identity_attention_steps {
    matrix x;       // [n, d]
    matrix gram;    // [n, n] X Xᵀ: entry (i, j) = x_i · x_j
    matrix output;  // [n, d] (X Xᵀ) X
};
identity_attention_steps identity_projection_attention(const matrix& x);

struct single_head_weights {
    matrix w_q;  // [d, d_k]
    matrix w_k;  // [d, d_k]
    matrix w_v;  // [d, d_v]
};

struct stacked_attention_steps {
    attention_steps layer1;   // on X: A₁ = layer1.weights, H₁ = layer1.output [n, d_v1]
    attention_steps layer2;   // on H₁: A₂ = layer2.weights, H₂ = layer2.output [n, d_v2]
    matrix combined_weights;  // [n, n] A* = A₂ A₁ (rows sum to 1)
    matrix combined_value;    // [d, d_v2] V* = W_V1 W_V2
    matrix collapsed_output;  // [n, d_v2] A* X V* — equals layer2.output
};
// Layer 1 projects X with w1; layer 2 projects H₁ with w2 (w2's rows = w1.w_v's columns).
stacked_attention_steps stacked_attention(const matrix& x, const single_head_weights& w1,
                                          const single_head_weights& w2, const attention_options& options = {});

}  // namespace attn
