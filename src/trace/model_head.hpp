// trace/model_head.hpp — one attention layer of a model's forward (model/traced_forward)
// seen as an `attn trace` run, so `attn model run --layer L --head H` shows a head of
// a real model with the very tables, heatmaps and per-token walk-through `attn trace`
// shows for a spec (trace/trace_report.hpp, trace/explain.hpp).
//
// The run holds the model's own kept numbers, not a recomputation: hook_q, hook_k,
// hook_v (biases included), hook_pattern and hook_z are copied from the activations;
// the raw scores Q Kᵀ (which a causal model never keeps above the diagonal) are the
// one stage computed here, so the tables can show the masked cells' raw values as
// `attn trace` does. Scaled and masked scores are derived from them as in any run.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/traced_forward.hpp"
#include "trace/trace_run.hpp"

namespace attn::trace {

// What to show: layer, head and batch row (all counted from 0, as the hook names
// blocks.L… and TransformerLens count them), the sequence's token labels and a title.
struct model_head_choice {
    std::size_t layer = 0, head = 0, batch = 0;
    std::vector<std::string> tokens;  // [P] readable labels (bpe_tokenizer::token_label, or id_label)
    std::string title;                // "GPT-2 layer 0 · head 0 …"
};

// Throws std::invalid_argument when the layer, head or batch row does not exist.
template <class T>
trace_run model_head_run(const model::forward_acts<T>& acts, const model::architecture& config, const model_head_choice& c);

// Labels for a sequence whose tokens are given as ids only: "#464".
std::string id_label(int id);

}  // namespace attn::trace
