// model/finite_check.hpp — a forward is finite or refused, as a trace is: after
// train_forward, every stage it kept (list_stages, in the model's order) is scanned, and
// the first number that is not finite — a float32 forward overflowing on large but finite
// weights, or a float64 one on weights near 1e300 — is reported by its stage, layer and
// place, never printed (no "nan", no "undefined" probabilities, no greedy token #0). The
// causal mask's −inf above the diagonal of attn.hook_attn_scores is not a problem and
// is skipped.
#pragma once

#include "model/train_step.hpp"

namespace attn::model {

// The index of the first of x [n] that is not finite, or npos (static_cast<size_t>(-1));
// scanned a vector at a time (the exponent bits), then element by element where one is.
template <class T>
std::size_t first_nonfinite(const T* x, std::size_t n);

// Throws attn::error (exit 2) naming the first non-finite stage: "the float32 forward
// overflows at blocks.1.mlp.hook_post (layer 1), sequence 0, position 3: … --dtype float64".
template <class T>
void check_finite_forward(const architecture& config, const train_acts<T>& acts);
// The same scan over some stages (a forward that checks each block as it goes). A stage
// with null data (computed, not kept) is judged by its `fault`, found as it was computed.
template <class T>
void check_finite_stages(const std::vector<train_stage<T>>& stages);

// The same for one step of generate's cached decode (model/decode): the n numbers of the
// token at `position`'s stage `stage` ("attn.hook_z", "hook_resid_post", "logits") of
// layer `layer` (finite_model_wide: a stage after the blocks), refused by name —
// "the float32 decode overflows at blocks.1.mlp.hook_pre (layer 1), position 7: …" —
// before a greedy pick or a draw could turn it into a token.
constexpr std::size_t finite_model_wide = static_cast<std::size_t>(-1);
template <class T>
void check_finite_step(const T* data, std::size_t n, std::size_t layer, const char* stage, std::size_t position);

}  // namespace attn::model
