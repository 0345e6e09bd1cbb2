// model/memory.hpp — how many numbers a model verb will hold, computed from the
// architecture and the input's shape before anything is allocated, so the CLI can charge
// them to the run's budget (io/size_budget: --max-elements, default 2^28) and refuse a
// run that would take gigabytes with the sizes named instead of being killed by the
// kernel. Every count is exact or an upper bound of what the buffers really hold
// (model_memory_test compares them with the buffers made); nothing = past 2^64.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "model/architecture.hpp"

namespace attn::model {

// The numbers make_train_acts(config, B, Tn) allocates (exact): every stage of one
// forward over B sequences of Tn tokens, the [B, heads, Tn, Tn] score grids included.
std::optional<std::size_t> forward_numbers(const architecture& config, std::size_t B, std::size_t Tn);

struct stage_request;  // model/traced_forward.hpp

// trace_stages (model/traced_forward) asked for `request` (exact, in numbers; the token ids
// aside): one block's buffers reused layer after layer and the head's (make_train_acts(…, 1,
// false, grids): the score grids only when a block keeps them), the model-wide stages it keeps (hook_embed, hook_pos_embed, ln_final, logits,
// probs), every stage of each block asked for, and hook_pattern of the other blocks when
// the request keeps every pattern. The weights are not in it: load_model charges them.
std::optional<std::size_t> traced_numbers(const architecture& config, std::size_t B, std::size_t Tn,
                                          const stage_request& request);
// The same with every stage of every block kept (--json, --npy, lessons).
std::optional<std::size_t> traced_numbers(const architecture& config, std::size_t B, std::size_t Tn);

// What a trainer of batch B over Tn tokens holds: parameters, gradients and AdamW's two
// moments (4 × the parameter count), the forward's and the backward's stages, and
// --watch's one-row probe.
std::optional<std::size_t> training_numbers(const architecture& config, std::size_t B, std::size_t Tn);

// `attn model run --grad`: a copy of the parameters for their gradients, a forward and
// its backward's stages.
std::optional<std::size_t> gradient_numbers(const architecture& config, std::size_t B, std::size_t Tn);

// Generation through a KV cache of `capacity` positions (model/decode): the weights packed
// once (as many as the parameters), keys and values of every layer, the traced pattern,
// and `logit_rows` rows of logits kept for --json --logits.
std::optional<std::size_t> decode_numbers(const architecture& config, std::size_t capacity, std::size_t logit_rows);

// Encoding a text of `bytes` bytes (model/tokenizer): the tokenizers keep a symbol, its
// origin and its merge candidates per character, as many as 8 numbers' worth (64 bytes) per
// byte of text (measured: SentencePiece BPE on 5.5 MB of English took 44 bytes a byte).
std::optional<std::size_t> encode_numbers(std::size_t bytes);

// The parameters' largest tensor as a message names it: "blocks.0.mlp.W_in [768 × 3072]".
std::string largest_parameter(const architecture& config);

}  // namespace attn::model
