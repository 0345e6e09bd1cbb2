// core/decoding.hpp — autoregressive decoding one token at a time with caches, through
// one decoder block of an encoder–decoder (seed 002's generation walk-through, seed 001 §4).
//   start:    cross-attention K = E W_K, V = E W_V from the encoder output E, once
//   step t:   the new token's q, k, v; k and v are appended to the self-attention cache
//             (it grows by one row per step); the new query attends over the cache (no
//             mask needed: the cache holds only the past and the present) and then over
//             the encoder's K, V; then the FFN. Each step's stages are kept.
// Fed the rows of a target sequence one by one, the step outputs equal decoder_block()
// with its causal mask row for row — the cache changes the cost, never the numbers.
//
// Counts per step are plain numbers. A FLOP is one multiply or one add, so a [m, k]·[k, p]
// product costs 2·m·k·p; softmax, layer norm and additions are left out (they are O(n·d),
// not products). "without cache" is the same step done naively: the whole prefix of t
// tokens re-run through the block and the encoder's K, V projected again.
#pragma once

#include <cstdint>
#include <vector>

#include "core/blocks.hpp"

namespace attn {

struct decode_counts {
    std::size_t step = 0;                  // 1-based
    std::size_t self_cache_rows = 0;       // rows in the self-attention cache after this step
    std::uint64_t flops_self_attention = 0;   // q, k, v of the new token + q·Kᵀ + a·V + W_O
    std::uint64_t flops_cross_attention = 0;  // q of the new token + q·Kᵀ over n_src + a·V + W_O
    std::uint64_t flops_ffn = 0;
    std::uint64_t flops_total = 0;
    std::uint64_t flops_without_cache = 0;
    std::uint64_t cache_values = 0;  // numbers held: self cache t·H·(d_k + d_v) + cross n_src·H·(d_k + d_v)
    std::uint64_t cache_bytes = 0;   // cache_values · 8 (doubles)
};

struct decode_step {
    std::size_t position = 0;          // 0-based position of the new token
    matrix input;                      // [1, d]
    multi_head_steps self_attention;   // q [1, H·d_k]; k, v = the whole cache [t, H·d_k], [t, H·d_v]
    sublayer_steps add_norm1;
    multi_head_steps cross_attention;  // q [1, H·d_k]; k, v = the encoder's [n_src, ·], made once
    sublayer_steps add_norm2;
    ffn_steps ffn;
    sublayer_steps add_norm3;
    matrix output;                     // [1, d]
    decode_counts counts;
};

class decoder_session {
public:
    // cross_options: e.g. a source padding mask of shape [1, n_src].
    decoder_session(const matrix& encoder_output, const decoder_block_weights& w,
                    const attention_options& cross_options = {});

    const decode_step& step(const matrix& token);  // token [1, d]
    const std::vector<decode_step>& steps() const { return steps_; }
    matrix outputs() const;  // [t, d] every step's output, stacked

    const matrix& cross_k() const { return cross_k_; }      // [n_src, H·d_k]
    const matrix& cross_v() const { return cross_v_; }      // [n_src, H·d_v]
    const matrix& self_k_cache() const { return self_k_; }  // [t, H·d_k]
    const matrix& self_v_cache() const { return self_v_; }  // [t, H·d_v]
    std::uint64_t cross_kv_flops() const;  // the one-off cost of cross K, V: 2·n_src·d·H·(d_k + d_v)

private:
    decoder_block_weights w_;
    attention_options cross_options_;
    matrix encoder_output_;  // [n_src, d]
    matrix cross_k_, cross_v_;
    matrix self_k_, self_v_;
    std::vector<decode_step> steps_;
};

// Feeds the rows of y ([n_tgt, d]) one per step; returns every step.
std::vector<decode_step> decode_sequence(const matrix& y, const matrix& encoder_output, const decoder_block_weights& w,
                                         const attention_options& cross_options = {});

}  // namespace attn
