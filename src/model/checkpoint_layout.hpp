// model/checkpoint_layout.hpp — the pieces of model/checkpoint.cpp: what a
// checkpoint's tensor names and shapes say (layout_scan), and the config resolved
// from __metadata__, config.json and those shapes (resolve_config).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "model/checkpoint.hpp"
#include "model/safetensors.hpp"

namespace attn::model {

struct layout_scan {
    std::map<std::string, const st_tensor*> by_key;  // "h.0.ln_1.weight", "wte.weight", "lm_head.weight"
    std::size_t n_layer = 0;
    bool has_mlp = false;
    bool linear = false;  // nn.Linear [out, in] (minGPT / nanoGPT); false: Conv1D [in, out]
    bool tied = true;     // no lm_head.weight
    bool wte_from_lm_head = false;  // no wte.weight: lm_head.weight is both (tied, saved once)
    std::uint64_t vocab = 0, n_embd = 0, n_positions = 0;
};

// Names → keys (prefix "transformer." dropped, mask buffers skipped, anything else
// refused), the layer count, MLP or not, and the layout from c_attn's shape.
layout_scan scan_layout(const st_header& h);

// The config: n_head and the epsilon from __metadata__ or config_json (a path, "" for
// none), the rest from the shapes, checked against any stated value.
architecture resolve_config(const st_header& h, const layout_scan& s, const std::string& config_json, checkpoint_info& info);

}  // namespace attn::model
