// model/patching.hpp — finding a circuit by intervening in the forward: activation
// patching (a clean run's activation written into the corrupted run: each head's hook_z,
// each layer's hook_resid_pre at each position) and ablation (a head's hook_z set to
// zero, or to its mean over the clean run's positions), each measured by one metric of
// the final logits. Every intervention is train_forward's stage_patch callback
// (model/train_step.hpp); activations are read through model/explain's stage_of.
// Wang et al. 2022 (IOI) and TransformerLens's patching utilities use the same recipe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/explain.hpp"

namespace attn::model {

enum class metric_kind {
    logit_diff,  // logits[last, a] − logits[last, b]
    loss,        // mean cross-entropy of the clean text's next tokens, predicted at positions ≥ from
    prob,        // softmax(logits[last])[a]
};

struct patch_metric {
    metric_kind kind = metric_kind::loss;
    int a = -1, b = -1;     // token ids (logit_diff: a, b; prob: a)
    std::size_t from = 0;   // loss: the first position whose prediction counts
};

// The metric of one run; clean_tokens give the loss's targets (the clean next tokens).
template <class T>
double metric_value(const patch_metric& m, const forward_record<T>& run, const std::vector<std::int32_t>& clean_tokens,
                    const architecture& c);

struct patching_result {
    double clean = 0, corrupt = 0;                   // the metric on each run, unpatched
    std::vector<std::vector<double>> head_patch;     // [layer][head] corrupted run, that head's hook_z from the clean run
    std::vector<std::vector<double>> resid_patch;    // [layer][pos]  corrupted run, hook_resid_pre at (layer, pos) from clean
    std::vector<std::vector<double>> zero_ablation;  // [layer][head] clean run, that head's hook_z set to 0
    std::vector<std::vector<double>> mean_ablation;  // [layer][head] clean run, that head's hook_z = its mean over positions
};

// Throws attn::error when the two inputs differ in length or a metric token or the
// loss's first position is out of range.
template <class T>
patching_result run_patching(const model_params<T>& p, const std::vector<int>& clean, const std::vector<int>& corrupt,
                             const patch_metric& m);

}  // namespace attn::model
