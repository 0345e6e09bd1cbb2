// core/attention.cpp — scaled dot-product attention, one named pass per stage.
#include "core/attention.hpp"

#include <cmath>
#include <string>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xview.hpp>

#include "core/shape_check.hpp"
#include "core/shape_error.hpp"

namespace attn {

namespace {

void check_shapes(const matrix& q, const matrix& k, const matrix& v, const attention_options& o) {
    attention_shapes s{q.shape(0), q.shape(1), k.shape(0), k.shape(1), v.shape(0), v.shape(1), std::nullopt, std::nullopt};
    if (o.mask) s.mask = std::make_pair(o.mask->shape(0), o.mask->shape(1));
    if (o.bias) s.bias = std::make_pair(o.bias->shape(0), o.bias->shape(1));
    check_attention_shapes(s);
}

}  // namespace

bool attention_steps::any_row_fully_masked() const {
    for (bool b : row_fully_masked)
        if (b) return true;
    return false;
}

matrix matmul(const matrix& a, const matrix& b, bool transpose_b) {
    const std::size_t inner_b = transpose_b ? b.shape(1) : b.shape(0);
    if (a.shape(1) != inner_b)
        throw shape_error("matmul: inner dimensions differ (" + std::to_string(a.shape(1)) + " vs " +
                          std::to_string(inner_b) + ")");
    const std::size_t p = transpose_b ? b.shape(0) : b.shape(1);
    matrix c = xt::zeros<double>({a.shape(0), p});  // [m, p]
    if (a.shape(0) == 0 || p == 0) return c;
    if (a.shape(1) == 0) return c;  // empty inner dimension: the sum of nothing
    xt::blas::gemm(a, b, c, false, transpose_b);
    return c;
}

matrix softmax_rows(const matrix& scores, std::vector<bool>* fully_masked) {
    const std::size_t n_q = scores.shape(0), n_k = scores.shape(1);
    matrix weights = xt::zeros<double>({n_q, n_k});  // [n_q, n_k]
    if (fully_masked) fully_masked->assign(n_q, false);
    for (std::size_t i = 0; i < n_q; ++i) {
        // Pass 1: the row max. A row with no finite score has no distribution.
        double row_max = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < n_k; ++j) row_max = std::max(row_max, scores(i, j));
        if (!std::isfinite(row_max)) {
            if (fully_masked) (*fully_masked)[i] = true;
            continue;  // weights stay 0
        }
        // Pass 2: exp of the max-shifted scores and their sum (exp(−inf) = 0 exactly).
        double sum = 0.0;
        for (std::size_t j = 0; j < n_k; ++j) {
            const double e = std::exp(scores(i, j) - row_max);
            weights(i, j) = e;
            sum += e;
        }
        // Pass 3: normalise. sum ≥ 1 because the max cell contributes exp(0).
        for (std::size_t j = 0; j < n_k; ++j) weights(i, j) /= sum;
    }
    return weights;
}

attention_steps scaled_dot_product_attention(const matrix& q, const matrix& k, const matrix& v,
                                             const attention_options& options) {
    check_shapes(q, k, v, options);
    attention_steps s;
    s.q = q;
    s.k = k;
    s.v = v;
    const std::size_t n_q = q.shape(0), n_k = k.shape(0);

    // Stage 1: raw scores, every query against every key.
    s.scores_raw = matmul(q, k, /*transpose_b=*/true);  // [n_q, n_k]

    // Stage 2: scale by √d_k so the softmax does not saturate as d_k grows.
    s.scale = options.scale_divisor ? *options.scale_divisor : std::sqrt(static_cast<double>(q.shape(1)));
    s.scores_scaled = s.scores_raw / s.scale;  // [n_q, n_k]

    // Stage 3: additive bias, then the mask.
    s.attend = options.mask ? *options.mask : bool_matrix(xt::ones<bool>({n_q, n_k}));  // [n_q, n_k]
    s.scores_masked = s.scores_scaled;  // [n_q, n_k]
    if (options.bias) s.scores_masked += *options.bias;
    for (std::size_t i = 0; i < n_q; ++i)
        for (std::size_t j = 0; j < n_k; ++j)
            if (!s.attend(i, j)) s.scores_masked(i, j) = options.masked_fill;

    // Stage 4: softmax over keys. Rows with every key blocked are caught by the
    // mask itself (a finite masked_fill would otherwise spread weight uniformly).
    s.weights = softmax_rows(s.scores_masked, &s.row_fully_masked);  // [n_q, n_k]
    for (std::size_t i = 0; i < n_q; ++i) {
        bool any_visible = false;
        for (std::size_t j = 0; j < n_k; ++j) any_visible = any_visible || s.attend(i, j);
        if (!any_visible) {
            s.row_fully_masked[i] = true;
            for (std::size_t j = 0; j < n_k; ++j) s.weights(i, j) = 0.0;
        }
    }

    // Stage 5: the weighted sum of value rows.
    s.output = matmul(s.weights, v);  // [n_q, d_v]
    return s;
}

matrix contributions_for_query(const attention_steps& steps, std::size_t query) {
    const std::size_t n_k = steps.n_k(), d_v = steps.d_v();
    matrix c({n_k, d_v});  // [n_k, d_v]
    for (std::size_t j = 0; j < n_k; ++j)
        for (std::size_t d = 0; d < d_v; ++d) c(j, d) = steps.weights(query, j) * steps.v(j, d);
    return c;
}

tensor3 all_contributions(const attention_steps& steps) {
    tensor3 c({steps.n_q(), steps.n_k(), steps.d_v()});  // [n_q, n_k, d_v]
    for (std::size_t i = 0; i < steps.n_q(); ++i)
        xt::view(c, i, xt::all(), xt::all()) = contributions_for_query(steps, i);
    return c;
}

}  // namespace attn
