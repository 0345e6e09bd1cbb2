// model/circuits.hpp — circuits read from the weights alone (Elhage et al. 2021, "A
// Mathematical Framework for Transformer Circuits"), with TransformerLens's default
// weight processing: each layer norm's weight folded into the matrices that read it,
// W_O's rows centred when the next norm is a LayerNorm (it removes the mean anyway; an
// RMSNorm model's W_O is kept as it is); the norms' per-position scales and biases, and
// rotary positions, are left out, as there. With grouped-query attention a query head's
// W_K and W_V are those of its key/value head h / (H / KV).
//
//   W_QK(h) = W_Q,h · W_K,hᵀ   [d_model, d_model]   a query's stream · W_QK · a key's stream
//   W_OV(h) = W_V,h · W_O,h    [d_model, d_model]   what a head moves from a key into the query
//   full QK circuit  W_E · W_QK · W_Eᵀ               token as query × token as key
//   full OV circuit  W_E · W_OV · W_U                 token attended to × logit it raises
//   composition score of an earlier head A into a later head B:
//     ‖W_A · W_B‖_F / (‖W_A‖_F · ‖W_B‖_F) with W_A = W_OV(A) and W_B = W_QK(B) (Q),
//     W_QK(B)ᵀ (K) or W_OV(B) (V) — TransformerLens's composition_scores.
// Norms of these d_model × d_model products are computed from d_head × d_head Gram
// matrices, so GPT-2's 144 heads take seconds, not hours.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/params.hpp"

namespace attn::model {

// [n, n]: the full QK (rows: tokens 0..n−1 as queries, columns as keys) or OV circuit
// (rows: the token attended to, columns: the logit of each token 0..n−1).
template <class T>
std::vector<std::vector<double>> full_qk_circuit(const model_params<T>& p, std::size_t layer, std::size_t head, std::size_t n);
template <class T>
std::vector<std::vector<double>> full_ov_circuit(const model_params<T>& p, std::size_t layer, std::size_t head, std::size_t n);

struct composition {
    std::size_t earlier_layer = 0, earlier_head = 0, later_layer = 0, later_head = 0;
    double q = 0, k = 0, v = 0;  // Q-, K-, V-composition scores
};

// Every pair of heads in different layers that holds head `head` of `layer` (as the
// earlier or the later one), in the order of the earlier head, then the later.
// (All pairs of GPT-2 small would be ~10⁴ products of 768 × 64 matrices; one head's
// pairs take about a second.)
template <class T>
std::vector<composition> composition_scores(const model_params<T>& p, std::size_t layer, std::size_t head);

}  // namespace attn::model
