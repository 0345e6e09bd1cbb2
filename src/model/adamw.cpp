// model/adamw.cpp — AdamW with global-norm clipping (see the header for the formulas).
#include "model/adamw.hpp"

#include <cmath>
#include <type_traits>
#include <vector>

#include "model/train_layers.hpp"
#include "model/train_simd.hpp"
#include "model/train_step.hpp"

namespace attn::model {

double learning_rate(const adamw_config& c, std::size_t step) {
    if (c.warmup > 0 && step < c.warmup)
        return c.lr * static_cast<double>(step + 1) / static_cast<double>(c.warmup);
    if (!c.cosine || c.total_steps <= c.warmup) return c.lr;
    const double progress =
        static_cast<double>(step - c.warmup) / static_cast<double>(c.total_steps - c.warmup);
    const double pi = 3.14159265358979323846;
    return c.min_lr + 0.5 * (1.0 + std::cos(pi * std::min(progress, 1.0))) * (c.lr - c.min_lr);
}

template <class T>
double global_norm(const model_params<T>& grads) {
    double sum = 0;
    for_each_param(grads, [&](const std::string&, param_kind, const auto& g) {
        for (const T x : g) sum += static_cast<double>(x) * static_cast<double>(x);
    });
    return std::sqrt(sum);
}

template <class T>
adamw<T>::adamw(const adamw_config& config, const architecture& model)
    : config_(config), m_(zero_params<T>(model)), v_(zero_params<T>(model)) {
    zero_params_in_place(m_);
    zero_params_in_place(v_);
}

// Named, not anonymous: step's lambda captures these, and GCC warns (-Wsubobject-linkage)
// when a lambda of an external function holds a file-local type in a unity build.
namespace adamw_detail {
// The tensors of one model_params in for_each_param's order, with their kinds.
template <class T>
struct flat {
    std::vector<T*> data;
    std::vector<std::size_t> size;
    std::vector<param_kind> kind;
};
template <class T>
flat<T> flatten(model_params<T>& p) {
    flat<T> f;
    for_each_param(p, [&](const std::string&, param_kind k, auto& t) {
        f.data.push_back(t.data());
        f.size.push_back(t.size());
        f.kind.push_back(k);
    });
    return f;
}
}  // namespace adamw_detail

template <class T>
double adamw<T>::step(model_params<T>& params, model_params<T>& grads) {
    const double norm = global_norm(grads);
    using adamw_detail::flat;
    using adamw_detail::flatten;
    const flat<T> p = flatten(params), g = flatten(grads), m = flatten(m_), v = flatten(v_);
    if (config_.clip > 0) {
        // PyTorch: coef = max_norm / (norm + 1e-6), clamped to 1, always multiplied; a task per tensor.
        const double coef = std::min(1.0, config_.clip / (norm + 1e-6));
        training::for_tasks(g.data.size(), [&](std::size_t i) {
            for (T* x = g.data[i]; x != g.data[i] + g.size[i]; ++x) *x = static_cast<T>(*x * coef);
        });
    }
    const double lr = learning_rate(config_, t_);
    ++t_;
    const double b1 = config_.beta1, b2 = config_.beta2;
    const double bc1 = 1.0 - std::pow(b1, static_cast<double>(t_));
    const double bc2_sqrt = std::sqrt(1.0 - std::pow(b2, static_cast<double>(t_)));
    const T step_size = static_cast<T>(lr / bc1);
    const T decay = static_cast<T>(1.0 - lr * config_.weight_decay);
    // One task per tensor, on the training's threads: each element's update stands alone.
    training::for_tasks(p.data.size(), [&](std::size_t i) {
        const bool decayed = p.kind[i] == param_kind::linear;
        T *pi = p.data[i], *gi = g.data[i], *mi = m.data[i], *vi = v.data[i];
        std::size_t j = 0;
        if constexpr (std::is_same<T, float>::value)  // AVX-512 when chosen: the same operations (model/train_simd)
            j = training::simd::adamw(pi, gi, mi, vi, p.size[i],
                                      {decayed, decay, static_cast<T>(b1), static_cast<T>(1.0 - b1), static_cast<T>(b2),
                                       static_cast<T>(1.0 - b2), static_cast<T>(bc2_sqrt), static_cast<T>(config_.eps),
                                       step_size});
        for (; j < p.size[i]; ++j) {
            if (decayed) pi[j] *= decay;
            mi[j] = static_cast<T>(b1) * mi[j] + static_cast<T>(1.0 - b1) * gi[j];
            vi[j] = static_cast<T>(b2) * vi[j] + static_cast<T>(1.0 - b2) * gi[j] * gi[j];
            const T denom = std::sqrt(vi[j]) / static_cast<T>(bc2_sqrt) + static_cast<T>(config_.eps);
            pi[j] -= step_size * mi[j] / denom;
        }
    });
    return norm;
}

template double global_norm<float>(const model_params<float>&);
template double global_norm<double>(const model_params<double>&);
template class adamw<float>;
template class adamw<double>;

}  // namespace attn::model
