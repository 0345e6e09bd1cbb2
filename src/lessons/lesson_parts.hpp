// lessons/lesson_parts.hpp — what a lesson's [blocks.X] tables computed: multi-head
// attention, encoder and decoder blocks, step-by-step decoding and stacked layers,
// every stage kept as the core returns it. The loader also registers their pieces
// as ordinary runs ("mha.h1") and matrices ("enc.add_norm1.stream"), so the basic
// show kinds work on them; the show kinds that need the whole structure (sub-layer
// tables, decoding counts) read it from here.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/blocks.hpp"
#include "core/decoding.hpp"
#include "core/layer_norm.hpp"
#include "core/multi_head.hpp"
#include "core/stacking.hpp"

namespace attn::lessons {

struct block_result {
    std::string kind;  // multi_head | encoder_block | decoder_block | decoding | stacked
    std::string title;
    std::vector<std::string> query_tokens;  // [n_q] (target side for decoders)
    std::vector<std::string> key_tokens;    // [n_k] (source side for decoders)
    std::optional<multi_head_steps> mha;
    std::optional<encoder_block_steps> encoder;
    std::optional<decoder_block_steps> decoder;
    std::vector<decode_step> decoding;      // [n_tgt] one per generated token
    std::uint64_t cross_kv_flops = 0;       // decoding: the one-off cost of the encoder's K, V
    std::optional<stacked_attention_steps> stacked;
};

struct lesson_parts {
    std::map<std::string, block_result> blocks;
    std::map<std::string, layer_norm_steps> norms;  // [derived.X] op = "layer_norm", with statistics
};

}  // namespace attn::lessons
