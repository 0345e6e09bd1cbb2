// core/mask.hpp — attention masks as explicit inputs.
// A mask is always stored with "attend" polarity: true = the query may look at
// the key. Files name their polarity (attend or block); converting happens at
// the edge, never here, so there is exactly one meaning inside the core.
#pragma once

#include <vector>

#include "core/types.hpp"

namespace attn {

// [n_q, n_k] true where query i may attend to key j (j <= i + offset).
// offset lets a query block at position p of a longer key sequence (KV cache).
bool_matrix causal_mask(std::size_t n_q, std::size_t n_k, std::size_t offset = 0);

// [n_q, n_k] every query may attend to key j unless key_is_padding[j].
bool_matrix padding_mask(std::size_t n_q, const std::vector<bool>& key_is_padding);

// [n_q, n_k] all true.
bool_matrix full_mask(std::size_t n_q, std::size_t n_k);

// Element-wise AND of two attend-masks of the same shape.
bool_matrix combine_masks(const bool_matrix& a, const bool_matrix& b);

}  // namespace attn
