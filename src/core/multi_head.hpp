// core/multi_head.hpp — multi-head attention that keeps every stage (seed 000 §3.1,
// seed 004 Q1–Q2, TransformerLens' per-head hook_result).
//
//   Q = X_q W_Q            // [n_q, H·d_k]     K = X_kv W_K   // [n_k, H·d_k]
//   V = X_kv W_V           // [n_k, H·d_v]
//   split: (n, H·d) → reshape (n, H, d) → transpose (H, n, d): head h owns columns
//          h·d … (h+1)·d − 1 of Q, K, V
//   per head: scaled_dot_product_attention(Q_h, K_h, V_h, options) — the same mask and
//          bias for every head; the scale is √d_k of one head
//   concat = [Z_1 … Z_H]   // [n_q, H·d_v]
//   output = concat W_O    // [n_q, d_out]  (d_out = d_model usually)
//   head_results[h] = Z_h W_O[h·d_v:(h+1)·d_v, :]  // [n_q, d_out]; Σ_h = output
// Self-attention passes X as both X_q and X_kv; cross-attention passes decoder X_q
// and encoder X_kv. d_k ≠ d_v per head is allowed. Shape errors throw shape_error.
#pragma once

#include <vector>

#include "core/attention.hpp"
#include "core/types.hpp"

namespace attn {

struct multi_head_weights {
    matrix w_q;  // [d_model, H·d_k]
    matrix w_k;  // [d_model, H·d_k]
    matrix w_v;  // [d_model, H·d_v]
    matrix w_o;  // [H·d_v, d_out]
    std::size_t heads = 1;
};

struct multi_head_steps {
    std::size_t heads = 0, d_k = 0, d_v = 0;  // d_k, d_v per head
    matrix x_q;             // [n_q, d_model] (empty when started from projections)
    matrix x_kv;            // [n_k, d_model] (empty when started from projections)
    matrix q;               // [n_q, H·d_k]
    matrix k;               // [n_k, H·d_k]
    matrix v;               // [n_k, H·d_v]
    tensor3 q_heads;        // [H, n_q, d_k]
    tensor3 k_heads;        // [H, n_k, d_k]
    tensor3 v_heads;        // [H, n_k, d_v]
    std::vector<attention_steps> head;  // [H] every stage of every head
    matrix concat;          // [n_q, H·d_v]
    matrix output;          // [n_q, d_out]
    tensor3 head_results;   // [H, n_q, d_out] one head's share of output

    std::size_t n_q() const { return q.shape(0); }
    std::size_t n_k() const { return k.shape(0); }
    tensor3 weights() const;  // [H, n_q, n_k] the attention pattern of every head
};

multi_head_steps multi_head_attention(const matrix& x_q, const matrix& x_kv, const multi_head_weights& w,
                                      const attention_options& options = {});
inline multi_head_steps multi_head_self_attention(const matrix& x, const multi_head_weights& w,
                                                  const attention_options& options = {}) {
    return multi_head_attention(x, x, w, options);
}

// One attention_options per head (e.g. ALiBi slopes that differ between heads);
// per_head.size() must be H.
multi_head_steps multi_head_attention(const matrix& x_q, const matrix& x_kv, const multi_head_weights& w,
                                      const std::vector<attention_options>& per_head);
// From projections already made (a KV cache): q [n_q, H·d_k], k [n_k, H·d_k],
// v [n_k, H·d_v], w_o [H·d_v, d_out]. Stages from the split on; x_q, x_kv stay empty.
multi_head_steps multi_head_from_projections(const matrix& q, const matrix& k, const matrix& v, const matrix& w_o,
                                             std::size_t heads, const std::vector<attention_options>& per_head);

// The (n, H·d) → (H, n, d) split and its inverse (concatenation of heads).
tensor3 split_heads(const matrix& m, std::size_t heads);  // [n, H·d] → [H, n, d]
matrix merge_heads(const tensor3& t);                     // [H, n, d] → [n, H·d]
// Head h's own projection: columns h·c/H … (h+1)·c/H − 1 of a [d_model, c] matrix.
matrix head_columns(const matrix& w, std::size_t head, std::size_t heads);  // [d_model, c/H]
// Head h's rows of W_O: rows h·r/H … (h+1)·r/H − 1 of a [r, d_out] matrix.
matrix head_rows(const matrix& w, std::size_t head, std::size_t heads);  // [r/H, d_out]
// Full weights from one W_Q, W_K, W_V per head ([d_model, d_k] / [d_model, d_v]) and W_O.
multi_head_weights weights_from_heads(const std::vector<matrix>& w_q, const std::vector<matrix>& w_k,
                                      const std::vector<matrix>& w_v, const matrix& w_o);

// B items at once, each with its own stages. options holds one entry for all items
// or one per item (padding masks differ between items).
struct batched_multi_head_steps {
    std::vector<multi_head_steps> items;  // [B]
    tensor3 output;                       // [B, n_q, d_out]
};
batched_multi_head_steps multi_head_attention_batched(const tensor3& x_q, const tensor3& x_kv,
                                                      const multi_head_weights& w,
                                                      const std::vector<attention_options>& options = {});

}  // namespace attn
