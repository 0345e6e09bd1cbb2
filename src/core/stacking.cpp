// core/stacking.cpp — (XXᵀ)X and the collapse of two stacked linear attention layers.
#include "core/stacking.hpp"

namespace attn {

identity_attention_steps identity_projection_attention(const matrix& x) {
    identity_attention_steps s;
    s.x = x;
    s.gram = matmul(x, x, /*transpose_b=*/true);  // [n, n]
    s.output = matmul(s.gram, x);                 // [n, d]
    return s;
}

stacked_attention_steps stacked_attention(const matrix& x, const single_head_weights& w1,
                                          const single_head_weights& w2, const attention_options& options) {
    stacked_attention_steps s;
    s.layer1 = scaled_dot_product_attention(matmul(x, w1.w_q), matmul(x, w1.w_k), matmul(x, w1.w_v), options);
    const matrix& h1 = s.layer1.output;  // [n, d_v1]
    s.layer2 = scaled_dot_product_attention(matmul(h1, w2.w_q), matmul(h1, w2.w_k), matmul(h1, w2.w_v), options);
    s.combined_weights = matmul(s.layer2.weights, s.layer1.weights);  // [n, n] A₂ A₁
    s.combined_value = matmul(w1.w_v, w2.w_v);                        // [d, d_v2] W_V1 W_V2
    s.collapsed_output = matmul(matmul(s.combined_weights, x), s.combined_value);  // [n, d_v2]
    return s;
}

}  // namespace attn
