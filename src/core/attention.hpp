// core/attention.hpp — scaled dot-product attention that keeps every stage.
//
//   scores_raw    = Q Kᵀ                         // [n_q, n_k]
//   scores_scaled = scores_raw / √d_k            // [n_q, n_k]
//   scores_masked = scores_scaled + bias, −inf where the mask blocks
//   weights       = softmax over keys (row max subtracted first)
//   output        = weights V                    // [n_q, d_v]
//
// Self-attention passes the same sequence's Q, K, V; causal self-attention adds
// causal_mask(); cross-attention passes decoder Q and encoder K, V (n_q ≠ n_k is
// fine). Rows are always queries and columns always keys.
#pragma once

#include <limits>
#include <optional>
#include <vector>

#include "core/types.hpp"

namespace attn {

struct attention_options {
    // [n_q, n_k] true = attend. Absent = every query sees every key.
    std::optional<bool_matrix> mask;
    // [n_q, n_k] added to the scaled scores before masking (ALiBi-style bias).
    std::optional<matrix> bias;
    // What a blocked cell becomes before the softmax. −inf gives weights of exactly
    // 0; a large negative constant (−1e5, as some code bases do) is kept for lessons.
    double masked_fill = -std::numeric_limits<double>::infinity();
    // Divisor of the raw scores. Absent = √d_k. Set to 1 for "no scaling".
    std::optional<double> scale_divisor;
};

struct attention_steps {
    matrix q;              // [n_q, d_k]
    matrix k;              // [n_k, d_k]
    matrix v;              // [n_k, d_v]
    double scale = 1.0;    // the divisor used, √d_k unless overridden
    matrix scores_raw;     // [n_q, n_k] Q Kᵀ
    matrix scores_scaled;  // [n_q, n_k] scores_raw / scale
    bool_matrix attend;    // [n_q, n_k] the mask actually applied (all true if none)
    matrix scores_masked;  // [n_q, n_k] scaled + bias, masked_fill where blocked
    matrix weights;        // [n_q, n_k] softmax over keys; rows sum to 1 (or 0 if fully masked)
    matrix output;         // [n_q, d_v] weights V
    std::vector<bool> row_fully_masked;  // [n_q] true where no key was visible: weights 0

    std::size_t n_q() const { return q.shape(0); }
    std::size_t n_k() const { return k.shape(0); }
    std::size_t d_k() const { return q.shape(1); }
    std::size_t d_v() const { return v.shape(1); }
    bool any_row_fully_masked() const;
};

// Checks shapes (d_k of Q = d_k of K, n of K = n of V, mask and bias [n_q, n_k])
// and throws shape_error naming both shapes by their axis names.
attention_steps scaled_dot_product_attention(const matrix& q, const matrix& k, const matrix& v,
                                             const attention_options& options = {});

// Row-wise numerically stable softmax of a [n_q, n_k] matrix: subtracts the row max,
// so ±1e4 scores neither overflow nor underflow. A row that is entirely −inf gives
// zeros and sets fully_masked[i] (the caller decides how to report it), never NaN.
matrix softmax_rows(const matrix& scores, std::vector<bool>* fully_masked = nullptr);

// The per-key contributions of one query: w_ij · v_j.  // [n_k, d_v]
// Computed on demand: the full [n_q, n_k, d_v] tensor is only built when asked.
matrix contributions_for_query(const attention_steps& steps, std::size_t query);
tensor3 all_contributions(const attention_steps& steps);  // [n_q, n_k, d_v]

// Matrix product through BLAS: a [m, n] · b [n, p] → [m, p] (transpose_b: b is [p, n]).
matrix matmul(const matrix& a, const matrix& b, bool transpose_b = false);

}  // namespace attn
