// core/layer_norm.hpp — layer normalisation with its statistics kept, and the residual
// add (seed 000 §3.2–3.3, eq. 27–29).
//   µ_i = (1/d) Σ_j h_ij            σ²_i = (1/d) Σ_j (h_ij − µ_i)²   (per token: row i)
//   LN(h_i) = γ ⊙ (h_i − µ_i) / √(σ²_i + ε) + β
// The statistics are per token and shared across the d features: token i never affects
// token j's normalisation. Seed 000 omits γ, β and ε; ε defaults to 1e-5 (PyTorch's
// choice) and can be set to 0 to reproduce the seed's formula exactly. A token whose
// features are all equal has σ = 0: with ε = 0 its normalised row is 0, never NaN.
#pragma once

#include <optional>

#include "core/types.hpp"

namespace attn {

struct layer_norm_params {
    std::optional<vector> gamma;  // [d] gain, absent = 1
    std::optional<vector> beta;   // [d] bias, absent = 0
    double eps = 1e-5;
};

struct layer_norm_steps {
    matrix input;       // [n, d]
    vector mean;        // [n] µ per token
    vector variance;    // [n] σ² per token (divides by d, not d − 1)
    vector stddev;      // [n] √(σ² + ε), the divisor used
    matrix normalized;  // [n, d] (h − µ)/√(σ² + ε): each row mean 0, variance ≈ 1
    matrix output;      // [n, d] γ ⊙ normalized + β
};

layer_norm_steps layer_norm(const matrix& h, const layer_norm_params& params = {});

// f(h) + h, the residual connection (eq. 29); throws shape_error unless shapes agree.
matrix residual_add(const matrix& sublayer_output, const matrix& input);

}  // namespace attn
