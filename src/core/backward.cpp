// core/backward.cpp — see backward.hpp: one named pass per gradient, top to bottom
// in the reverse order of the forward.
#include "core/backward.hpp"

#include <cmath>
#include <string>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "core/random_tensors.hpp"
#include "core/shape_error.hpp"

namespace attn {

attention_grads attention_backward(const attention_steps& f, const matrix& grad_output) {
    if (grad_output.shape(0) != f.n_q() || grad_output.shape(1) != f.d_v())
        throw shape_error("dO [" + std::to_string(grad_output.shape(0)) + ", " + std::to_string(grad_output.shape(1)) +
                          "] must have the output's shape [n_q=" + std::to_string(f.n_q()) +
                          ", d_v=" + std::to_string(f.d_v()) + "]");
    const std::size_t n_q = f.n_q(), n_k = f.n_k();
    attention_grads g;
    g.grad_output = grad_output;  // [n_q, d_v]
    g.scale = f.scale;

    // Pass 1: O = A V, so dV = Aᵀ dO and dA = dO Vᵀ.
    g.grad_v = matmul(matrix(xt::transpose(f.weights)), grad_output);          // [n_k, d_v]
    g.grad_weights = matmul(grad_output, f.v, /*transpose_b=*/true);  // [n_q, n_k]

    // Pass 2: the softmax Jacobian row by row, dS_ij = A_ij (dA_ij − Σ_k A_ik dA_ik).
    // A blocked cell was replaced by a constant, so nothing flows back through it.
    g.row_dot = xt::zeros<double>({n_q});  // [n_q]
    for (std::size_t i = 0; i < n_q; ++i)
        for (std::size_t k = 0; k < n_k; ++k) g.row_dot(i) += f.weights(i, k) * g.grad_weights(i, k);
    g.grad_scores = xt::zeros<double>({n_q, n_k});  // [n_q, n_k]
    for (std::size_t i = 0; i < n_q; ++i)
        for (std::size_t j = 0; j < n_k; ++j)
            if (f.attend(i, j)) g.grad_scores(i, j) = f.weights(i, j) * (g.grad_weights(i, j) - g.row_dot(i));

    // Pass 3: through the scale (the bias is added, so it passes dS unchanged).
    g.grad_raw = g.grad_scores / f.scale;  // [n_q, n_k]

    // Pass 4: raw = Q Kᵀ, so dQ = dRaw K and dK = dRawᵀ Q.
    g.grad_q = matmul(g.grad_raw, f.k);              // [n_q, d_k]
    g.grad_k = matmul(matrix(xt::transpose(g.grad_raw)), f.q);  // [n_k, d_k]
    return g;
}

matrix softmax_jacobian(const vector& a) {
    const std::size_t n = a.size();
    matrix j({n, n});  // [n, n]
    for (std::size_t r = 0; r < n; ++r)
        for (std::size_t c = 0; c < n; ++c) j(r, c) = a(r) * ((r == c ? 1.0 : 0.0) - a(c));
    return j;
}

double softmax_jacobian_norm(const vector& a) {
    double s2 = 0.0, s3 = 0.0;
    for (double x : a) {
        s2 += x * x;
        s3 += x * x * x;
    }
    return std::sqrt(std::max(0.0, s2 - 2.0 * s3 + s2 * s2));
}

saturation_point measure_saturation(prng& g, std::size_t d, std::size_t n_keys, std::size_t samples) {
    saturation_point p;
    p.d = d;
    const double root_d = std::sqrt(static_cast<double>(d));
    for (std::size_t s = 0; s < samples; ++s) {
        const matrix q = normal_matrix(g, 1, d);       // [1, d]
        const matrix k = normal_matrix(g, n_keys, d);  // [n_keys, d]
        const matrix raw = matmul(q, k, true);         // [1, n_keys]
        const vector unscaled = xt::view(softmax_rows(raw), 0, xt::all());                    // [n_keys]
        const vector scaled = xt::view(softmax_rows(matrix(raw / root_d)), 0, xt::all());  // [n_keys]
        p.unscaled_norm += softmax_jacobian_norm(unscaled);
        p.scaled_norm += softmax_jacobian_norm(scaled);
        p.unscaled_max += xt::amax(unscaled)();
        p.scaled_max += xt::amax(scaled)();
    }
    const double n = static_cast<double>(samples ? samples : 1);
    p.unscaled_norm /= n;
    p.scaled_norm /= n;
    p.unscaled_max /= n;
    p.scaled_max /= n;
    return p;
}

}  // namespace attn
