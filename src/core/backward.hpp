// core/backward.hpp — the backward pass of scaled dot-product attention, every
// gradient kept as a named stage (lesson 15).
//
// Given dL/dO for the output O = A V of one forward run (attention_steps):
//   grad_v        = Aᵀ dO                               // [n_k, d_v]
//   grad_weights  = dO Vᵀ                               // [n_q, n_k]  dA
//   row_dot       = Σ_k A_ik dA_ik                      // [n_q]       the Σ term
//   grad_scores   = A ⊙ (dA − row_dot)                  // [n_q, n_k]  dS, w.r.t. the scaled
//                                                       //   (and masked) scores; 0 where blocked
//   grad_raw      = dS / scale                          // [n_q, n_k]  w.r.t. Q Kᵀ
//   grad_q        = grad_raw K                          // [n_q, d_k]
//   grad_k        = grad_rawᵀ Q                         // [n_k, d_k]
// The softmax Jacobian of one row is diag(a) − a aᵀ; dS above is that Jacobian
// applied to dA without ever building it. softmax_jacobian() builds it for the
// lessons, and measure_saturation() shows what lesson 02 promised: unscaled
// scores of wide vectors make the Jacobian (and so every gradient through it) vanish.
#pragma once

#include <vector>

#include "core/attention.hpp"
#include "core/prng.hpp"

namespace attn {

struct attention_grads {
    matrix grad_output;   // [n_q, d_v] dL/dO, as given
    matrix grad_v;        // [n_k, d_v] Aᵀ dO
    matrix grad_weights;  // [n_q, n_k] dO Vᵀ
    vector row_dot;       // [n_q] Σ_k A_ik dA_ik
    matrix grad_scores;   // [n_q, n_k] A ⊙ (dA − row_dot): w.r.t. the scaled scores
    double scale = 1.0;   // the forward's divisor
    matrix grad_raw;      // [n_q, n_k] grad_scores / scale
    matrix grad_q;        // [n_q, d_k] grad_raw K
    matrix grad_k;        // [n_k, d_k] grad_rawᵀ Q
};

// Throws shape_error unless grad_output is [n_q, d_v] of the forward run.
attention_grads attention_backward(const attention_steps& forward, const matrix& grad_output);

// [n, n] ∂a_i/∂s_j = a_i (δ_ij − a_j) of one row of softmax weights a.
matrix softmax_jacobian(const vector& weights_row);

// Frobenius norm of softmax_jacobian(a), computed in closed form:
// ‖diag(a) − a aᵀ‖² = Σ a_i² − 2 Σ a_i³ + (Σ a_i²)².
double softmax_jacobian_norm(const vector& weights_row);

// Lesson 02's saturation, measured: for width d, `samples` random rows of n_keys
// scores q·k_j (entries N(0, 1)), and the mean Jacobian norm of softmax(q·k) and of
// softmax(q·k/√d), with the mean largest weight of each.
struct saturation_point {
    std::size_t d = 0;
    double scaled_norm = 0.0, unscaled_norm = 0.0;       // mean ‖J‖_F
    double scaled_max = 0.0, unscaled_max = 0.0;         // mean largest weight
};
saturation_point measure_saturation(prng& g, std::size_t d, std::size_t n_keys, std::size_t samples);

}  // namespace attn
