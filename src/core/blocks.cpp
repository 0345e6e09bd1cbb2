// core/blocks.cpp — encoder and decoder blocks built from the core's sub-layers.
#include "core/blocks.hpp"

#include "core/mask.hpp"

namespace attn {

encoder_block_steps encoder_block(const matrix& x, const encoder_block_weights& w, const attention_options& options) {
    encoder_block_steps s;
    s.placement = w.placement;
    s.input = x;
    // Sub-layer 1: bidirectional self-attention, every token sees every (unpadded) token.
    s.add_norm1 = add_and_norm(x, w.norm1, w.placement, [&](const matrix& in) {
        s.attention = multi_head_self_attention(in, w.attention, options);
        return s.attention.output;  // [n, d]
    });
    // Sub-layer 2: the same FFN on every token.
    s.add_norm2 = add_and_norm(s.add_norm1.stream, w.norm2, w.placement, [&](const matrix& in) {
        s.ffn = feed_forward(in, w.ffn);
        return s.ffn.output;  // [n, d]
    });
    s.output = s.add_norm2.stream;  // [n, d]
    s.sublayers = {{"self-attention", parse_shape("n × d"), s.attention.output, s.add_norm1.stream},
                   {"FFN", parse_shape("n × d"), s.ffn.output, s.add_norm2.stream}};
    return s;
}

decoder_block_steps decoder_block(const matrix& x, const matrix& encoder_output, const decoder_block_weights& w,
                                  const decoder_block_options& options) {
    decoder_block_steps s;
    s.placement = w.placement;
    s.input = x;
    s.encoder_output = encoder_output;
    const std::size_t n_tgt = x.shape(0);

    // Sub-layer 1: masked self-attention over the target tokens so far.
    attention_options self = options.self_options;
    if (options.causal) {
        const bool_matrix causal = causal_mask(n_tgt, n_tgt);  // [n_tgt, n_tgt]
        self.mask = self.mask ? combine_masks(*self.mask, causal) : causal;
    }
    s.add_norm1 = add_and_norm(x, w.norm1, w.placement, [&](const matrix& in) {
        s.self_attention = multi_head_self_attention(in, w.self_attention, self);
        return s.self_attention.output;  // [n_tgt, d]
    });

    // Sub-layer 2: cross-attention, queries from the decoder stream, keys and values from
    // the encoder output — every source token is visible (padding aside).
    s.add_norm2 = add_and_norm(s.add_norm1.stream, w.norm2, w.placement, [&](const matrix& in) {
        s.cross_attention = multi_head_attention(in, encoder_output, w.cross_attention, options.cross_options);
        return s.cross_attention.output;  // [n_tgt, d]
    });

    // Sub-layer 3: the FFN, token by token.
    s.add_norm3 = add_and_norm(s.add_norm2.stream, w.norm3, w.placement, [&](const matrix& in) {
        s.ffn = feed_forward(in, w.ffn);
        return s.ffn.output;  // [n_tgt, d]
    });
    s.output = s.add_norm3.stream;  // [n_tgt, d]
    const symbolic_shape stream_shape = parse_shape("n_tgt × d");
    s.sublayers = {{"masked self-attention", stream_shape, s.self_attention.output, s.add_norm1.stream},
                   {"cross-attention", stream_shape, s.cross_attention.output, s.add_norm2.stream},
                   {"FFN", stream_shape, s.ffn.output, s.add_norm3.stream}};
    return s;
}

}  // namespace attn
