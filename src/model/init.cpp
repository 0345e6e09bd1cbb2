// model/init.cpp — minGPT's initialisation (see the header).
#include "model/init.hpp"

#include <cmath>

#include "core/prng.hpp"

namespace attn::model {

namespace {
bool is_residual_projection(const std::string& name) {
    const auto ends = [&](const std::string& tail) {
        return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    return ends("attn.W_O") || ends("mlp.W_out");
}
}  // namespace

template <class T>
model_params<T> init_params(const architecture& config, std::uint64_t seed) {
    model_params<T> p = zero_params<T>(config);  // biases 0, layer norms 1 / 0
    prng g(seed);
    const double std_proj = 0.02 / std::sqrt(2.0 * static_cast<double>(config.n_layer));
    for_each_param(p, [&](const std::string& name, param_kind kind, auto& t) {
        if (kind != param_kind::linear && kind != param_kind::embedding) return;
        const double sd = is_residual_projection(name) ? std_proj : 0.02;
        for (auto& x : t) x = static_cast<T>(g.normal(0.0, sd));
    });
    return p;
}

template model_params<float> init_params<float>(const architecture&, std::uint64_t);
template model_params<double> init_params<double>(const architecture&, std::uint64_t);

}  // namespace attn::model
