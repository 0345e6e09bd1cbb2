// model/adamw.hpp — the optimiser of training: AdamW (Loshchilov & Hutter) exactly as
// PyTorch's torch.optim.AdamW computes it, weight decay decoupled and applied to the
// linear layers' weights only (minGPT's rule: never embeddings, layer norms or biases),
// after clipping the gradients by their global norm (torch.nn.utils.clip_grad_norm_),
// with an optional linear warm-up and cosine decay of the learning rate.
//
// Per parameter p with gradient g, at step t (from 1):
//   p ← p · (1 − lr·wd)                      decayed kinds only
//   m ← β1·m + (1 − β1)·g;  v ← β2·v + (1 − β2)·g²
//   p ← p − (lr / (1 − β1ᵗ)) · m / (√v / √(1 − β2ᵗ) + ε)
#pragma once

#include <cstddef>

#include "model/params.hpp"

namespace attn::model {

struct adamw_config {
    double lr = 5e-4;
    double beta1 = 0.9, beta2 = 0.95;  // minGPT's betas
    double eps = 1e-8;
    double weight_decay = 0.1;
    double clip = 1.0;           // global-norm clip; ≤ 0: none
    std::size_t warmup = 0;      // linear warm-up over this many steps (0: none)
    bool cosine = false;         // cosine decay from lr to min_lr over total_steps
    double min_lr = 0.0;
    std::size_t total_steps = 0;
};

// The learning rate of step `step` (from 0) under the warm-up and decay.
double learning_rate(const adamw_config& config, std::size_t step);

// The global L2 norm of every gradient (summed in double, in for_each_param's order).
template <class T>
double global_norm(const model_params<T>& grads);

template <class T>
class adamw {
public:
    adamw(const adamw_config& config, const architecture& model);

    // Clips grads in place, updates params with the rate of this step; returns the
    // norm before clipping.
    double step(model_params<T>& params, model_params<T>& grads);

    std::size_t steps_done() const { return t_; }

private:
    adamw_config config_;
    model_params<T> m_, v_;  // first and second moments, the params' shapes
    std::size_t t_ = 0;
};

}  // namespace attn::model
