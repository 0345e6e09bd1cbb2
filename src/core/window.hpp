// core/window.hpp — local (sliding-window) attention masks and what they cost
// (lesson 19). A window w lets query i see the keys j with |i − j| ≤ w (2w + 1 keys
// in the middle of a sequence); with causal, 0 ≤ i − j ≤ w (the token itself and
// the w before it). Stacked, L causal window layers let the last token reach
// L·w tokens back: the receptive field grows by w per layer.
#pragma once

#include <cstdint>

#include "core/types.hpp"

namespace attn {

// [n_q, n_k] true where query i may look at key j. offset = position of query 0
// among the keys (as causal_mask's offset, for a query block of a longer sequence).
bool_matrix window_mask(std::size_t n_q, std::size_t n_k, std::size_t w, bool causal, std::size_t offset = 0);

// Visible (query, key) pairs of a mask, i.e. score dot products actually needed.
std::uint64_t visible_pairs(const bool_matrix& attend);

// Multiply-adds of QKᵀ and A·V over the visible pairs only: pairs · (d_k + d_v).
std::uint64_t windowed_attention_macs(std::size_t n, std::size_t w, bool causal, std::size_t d_k, std::size_t d_v);

// How many tokens back (including none beyond itself = 0) the last token of a long
// sequence can draw information from after `layers` causal window layers: layers · w.
std::size_t receptive_field(std::size_t w, std::size_t layers);

}  // namespace attn
