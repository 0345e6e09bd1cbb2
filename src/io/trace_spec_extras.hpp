// io/trace_spec_extras.hpp — the spec keys of lessons 15–19 for `attn trace`:
//   backward = dL/dO        [n_q, heads·d_head_v] or [batch, n_q, heads·d_head_v]:
//                           the gradient arriving at hook_z; every gradient is traced
//   tile     = 2            keys per block: also run the online-softmax (tiled) forward
//   rope     = 10000.0      rotate q and k pairs by position (a base > 1, or true = 10000)
//   kv_heads = 2            G key/value heads shared by the query heads (G divides heads)
//   window   = 2            query i sees keys j with |i − j| ≤ w (and j ≤ i when causal)
// read_trace_extras() reads them (backward is read as an input array by the loader);
// resolve_trace_extras() checks them against the resolved shapes. Both throw
// input_error with file:line:col of the key.
#pragma once

#include <toml++/toml.h>

#include "io/trace_spec.hpp"

namespace attn::io {

// The extra top-level keys, for the loader's list of known keys.
const std::vector<std::string>& trace_extra_keys();

void read_trace_extras(const toml::table& doc, const std::string& file, trace_spec& spec);
void resolve_trace_extras(const trace_spec& spec, trace_inputs& in);

}  // namespace attn::io
