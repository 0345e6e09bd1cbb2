// core/layer_norm.cpp — per-token layer norm and the residual add.
#include "core/layer_norm.hpp"

#include <cmath>
#include <string>

#include <xtensor/xbuilder.hpp>

#include "core/internal_error.hpp"
#include "core/shape_error.hpp"

namespace attn {

layer_norm_steps layer_norm(const matrix& h, const layer_norm_params& params) {
    const std::size_t n = h.shape(0), d = h.shape(1);
    if (d == 0) throw shape_error("layer norm needs at least one feature (h is [n=" + std::to_string(n) + ", d=0])");
    if (params.gamma && params.gamma->size() != d)
        throw shape_error("gamma has " + std::to_string(params.gamma->size()) + " entries but h has d = " +
                          std::to_string(d) + " features");
    if (params.beta && params.beta->size() != d)
        throw shape_error("beta has " + std::to_string(params.beta->size()) + " entries but h has d = " +
                          std::to_string(d) + " features");
    if (!(params.eps >= 0.0)) throw internal_error("layer norm eps must be ≥ 0");
    layer_norm_steps s;
    s.input = h;
    s.mean = xt::zeros<double>({n});        // [n]
    s.variance = xt::zeros<double>({n});    // [n]
    s.stddev = xt::zeros<double>({n});      // [n]
    s.normalized = matrix({n, d});  // [n, d]
    s.output = matrix({n, d});      // [n, d]
    const double dd = static_cast<double>(d);
    for (std::size_t i = 0; i < n; ++i) {
        // Two passes (mean, then squared deviations) rather than E[h²] − µ², which
        // cancels catastrophically when µ is large compared with σ.
        double sum = 0.0;
        for (std::size_t j = 0; j < d; ++j) sum += h(i, j);
        const double mu = sum / dd;
        double sq = 0.0;
        for (std::size_t j = 0; j < d; ++j) sq += (h(i, j) - mu) * (h(i, j) - mu);
        const double var = sq / dd;
        const double sd = std::sqrt(var + params.eps);
        s.mean(i) = mu;
        s.variance(i) = var;
        s.stddev(i) = sd;
        for (std::size_t j = 0; j < d; ++j) {
            const double z = sd == 0.0 ? 0.0 : (h(i, j) - mu) / sd;
            s.normalized(i, j) = z;
            s.output(i, j) = (params.gamma ? (*params.gamma)(j) : 1.0) * z + (params.beta ? (*params.beta)(j) : 0.0);
        }
    }
    return s;
}

matrix residual_add(const matrix& sublayer_output, const matrix& input) {
    if (sublayer_output.shape() != input.shape())
        throw shape_error("residual add needs equal shapes: f(h) is [n=" + std::to_string(sublayer_output.shape(0)) +
                          ", d=" + std::to_string(sublayer_output.shape(1)) + "] but h is [n=" +
                          std::to_string(input.shape(0)) + ", d=" + std::to_string(input.shape(1)) + "]");
    return sublayer_output + input;  // [n, d]
}

}  // namespace attn
