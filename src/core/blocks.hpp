// core/blocks.hpp — Transformer blocks with every sub-layer kept (seed 000 §3.3–3.7,
// seed 004 Q2, seed 001).
//   Add & Norm, two placements (seed 000 eq. 30, 31):
//     pre-norm   h' = f(LN(h)) + h
//     post-norm  h' = LN(f(h) + h)        (the original Transformer's)
//   encoder block: multi-head self-attention (no causal mask) → Add & Norm → FFN → Add & Norm
//   decoder block of an encoder–decoder:
//     masked self-attention → Add & Norm → cross-attention (queries from the decoder
//     stream, keys and values from the encoder output) → Add & Norm → FFN → Add & Norm
// Every sub-layer's output is also listed in `sublayers` with its symbolic shape
// (seed 004's "Y_self ∈ R^{n_tgt × d}", without the batch axis).
#pragma once

#include <string>
#include <vector>

#include "core/attention.hpp"
#include "core/ffn.hpp"
#include "core/layer_norm.hpp"
#include "core/multi_head.hpp"
#include "core/shapes.hpp"

namespace attn {

enum class norm_placement { pre, post };

struct sublayer_record {
    std::string name;      // "self-attention", "masked self-attention", "cross-attention", "FFN"
    symbolic_shape shape;  // e.g. n_tgt × d
    matrix output;         // [n, d] the sub-layer's own output f(·), before the residual
    matrix stream;         // [n, d] the residual stream after this sub-layer's Add & Norm
};

// One Add & Norm around f: which LN saw what depends on the placement.
struct sublayer_steps {
    layer_norm_steps norm;  // pre: LN(h) fed to f; post: LN(h + f(h))
    matrix residual;        // [n, d] h + f(·)
    matrix stream;          // [n, d] pre: residual; post: norm.output
};

struct encoder_block_weights {
    multi_head_weights attention;
    ffn_weights ffn;
    layer_norm_params norm1, norm2;
    norm_placement placement = norm_placement::post;
};

struct encoder_block_steps {
    norm_placement placement = norm_placement::post;
    matrix input;                // [n, d]
    multi_head_steps attention;  // self-attention, every head
    sublayer_steps add_norm1;
    ffn_steps ffn;
    sublayer_steps add_norm2;
    matrix output;               // [n, d] = add_norm2.stream
    std::vector<sublayer_record> sublayers;  // self-attention, FFN
};

// options: the encoder's mask (padding) and bias; no causal mask is added.
encoder_block_steps encoder_block(const matrix& x, const encoder_block_weights& w,
                                  const attention_options& options = {});

struct decoder_block_weights {
    multi_head_weights self_attention;   // W_Q, W_K, W_V [d, H·d_q/H·d_v], W_O [H·d_v, d]
    multi_head_weights cross_attention;  // same shapes; K, V come from the encoder output
    ffn_weights ffn;
    layer_norm_params norm1, norm2, norm3;
    norm_placement placement = norm_placement::post;
};

struct decoder_block_options {
    bool causal = true;            // the decoder's look-ahead mask (AND-ed with self_options.mask)
    attention_options self_options;   // e.g. target padding
    attention_options cross_options;  // e.g. source padding; never causal (seed 004 Q4d)
};

struct decoder_block_steps {
    norm_placement placement = norm_placement::post;
    matrix input;                      // [n_tgt, d]
    matrix encoder_output;             // [n_src, d]
    multi_head_steps self_attention;   // Q, K, V from the decoder stream, causal
    sublayer_steps add_norm1;
    multi_head_steps cross_attention;  // Q from the stream, K, V from the encoder output
    sublayer_steps add_norm2;
    ffn_steps ffn;
    sublayer_steps add_norm3;
    matrix output;                     // [n_tgt, d] = add_norm3.stream
    std::vector<sublayer_record> sublayers;  // masked self-attention, cross-attention, FFN
};

decoder_block_steps decoder_block(const matrix& x, const matrix& encoder_output, const decoder_block_weights& w,
                                  const decoder_block_options& options = {});

// Runs f inside one Add & Norm with the given placement (used by the blocks and by decoding).
template <class F>
sublayer_steps add_and_norm(const matrix& h, const layer_norm_params& norm, norm_placement placement, F&& f) {
    sublayer_steps s;
    if (placement == norm_placement::pre) {
        s.norm = layer_norm(h, norm);
        s.residual = residual_add(f(s.norm.output), h);  // f(LN(h)) + h
        s.stream = s.residual;
    } else {
        s.residual = residual_add(f(h), h);  // f(h) + h
        s.norm = layer_norm(s.residual, norm);
        s.stream = s.norm.output;  // LN(f(h) + h)
    }
    return s;
}

}  // namespace attn
