// core/decoding.cpp — step-by-step decoding with a growing self-attention KV cache and
// cross-attention K, V computed once.
#include "core/decoding.hpp"

#include <string>

#include <xtensor/xview.hpp>

#include "core/shape_error.hpp"

namespace attn {

namespace {

// [rows + 1, cols]: cache with one more row at the bottom.
matrix append_row(const matrix& cache, const matrix& row) {
    matrix out({cache.shape(0) + 1, row.shape(1)});
    if (cache.shape(0) > 0) xt::view(out, xt::range(0, cache.shape(0)), xt::all()) = cache;
    xt::view(out, cache.shape(0), xt::all()) = xt::view(row, 0, xt::all());
    return out;
}

std::uint64_t u(std::size_t v) { return static_cast<std::uint64_t>(v); }

}  // namespace

decoder_session::decoder_session(const matrix& encoder_output, const decoder_block_weights& w,
                                 const attention_options& cross_options)
    : w_(w), cross_options_(cross_options), encoder_output_(encoder_output) {
    const multi_head_weights& c = w.cross_attention;
    if (c.w_k.shape(0) != encoder_output.shape(1) || c.w_v.shape(0) != encoder_output.shape(1))
        throw shape_error("the encoder output has d = " + std::to_string(encoder_output.shape(1)) +
                          " but the cross-attention W_K, W_V have " + std::to_string(c.w_k.shape(0)) + " and " +
                          std::to_string(c.w_v.shape(0)) + " rows");
    // The source never changes while the target grows: project it once.
    cross_k_ = matmul(encoder_output, c.w_k);  // [n_src, H·d_k]
    cross_v_ = matmul(encoder_output, c.w_v);  // [n_src, H·d_v]
    self_k_ = matrix({0, w.self_attention.w_k.shape(1)});  // [0, H·d_k]
    self_v_ = matrix({0, w.self_attention.w_v.shape(1)});  // [0, H·d_v]
}

std::uint64_t decoder_session::cross_kv_flops() const {
    const auto& c = w_.cross_attention;
    return 2 * u(encoder_output_.shape(0)) * u(c.w_k.shape(0)) * (u(c.w_k.shape(1)) + u(c.w_v.shape(1)));
}

const decode_step& decoder_session::step(const matrix& token) {
    const multi_head_weights& sa = w_.self_attention;
    const multi_head_weights& ca = w_.cross_attention;
    if (token.shape(0) != 1 || token.shape(1) != sa.w_q.shape(0))
        throw shape_error("a decoding step takes one token [1, d=" + std::to_string(sa.w_q.shape(0)) + "], got [" +
                          std::to_string(token.shape(0)) + ", " + std::to_string(token.shape(1)) + "]");
    decode_step s;
    s.position = steps_.size();
    s.input = token;

    // Sub-layer 1: the new token's k, v join the cache; its q looks at every cached row.
    s.add_norm1 = add_and_norm(token, w_.norm1, w_.placement, [&](const matrix& in) {
        const matrix q = matmul(in, sa.w_q);  // [1, H·d_k]
        self_k_ = append_row(self_k_, matmul(in, sa.w_k));  // [t, H·d_k]
        self_v_ = append_row(self_v_, matmul(in, sa.w_v));  // [t, H·d_v]
        s.self_attention = multi_head_from_projections(q, self_k_, self_v_, sa.w_o, sa.heads, {attention_options{}});
        s.self_attention.x_q = in;
        return s.self_attention.output;  // [1, d]
    });

    // Sub-layer 2: cross-attention over the encoder's K, V made at the start.
    s.add_norm2 = add_and_norm(s.add_norm1.stream, w_.norm2, w_.placement, [&](const matrix& in) {
        const matrix q = matmul(in, ca.w_q);  // [1, H·d_k]
        s.cross_attention = multi_head_from_projections(q, cross_k_, cross_v_, ca.w_o, ca.heads, {cross_options_});
        s.cross_attention.x_q = in;
        s.cross_attention.x_kv = encoder_output_;
        return s.cross_attention.output;  // [1, d]
    });

    // Sub-layer 3: the FFN on the new token only.
    s.add_norm3 = add_and_norm(s.add_norm2.stream, w_.norm3, w_.placement, [&](const matrix& in) {
        s.ffn = feed_forward(in, w_.ffn);
        return s.ffn.output;  // [1, d]
    });
    s.output = s.add_norm3.stream;  // [1, d]

    // Counts (see decoding.hpp): widths of this block.
    const std::uint64_t d = u(sa.w_q.shape(0)), hdk = u(sa.w_q.shape(1)), hdv = u(sa.w_v.shape(1));
    const std::uint64_t d_out = u(sa.w_o.shape(1));
    const std::uint64_t c_d = u(ca.w_q.shape(0)), c_hdk = u(ca.w_q.shape(1)), c_hdv = u(ca.w_v.shape(1));
    const std::uint64_t c_out = u(ca.w_o.shape(1));
    const std::uint64_t d_ff = u(w_.ffn.w1.shape(1)), f_in = u(w_.ffn.w1.shape(0)), f_out = u(w_.ffn.w2.shape(1));
    const std::uint64_t t = u(self_k_.shape(0)), n_src = u(encoder_output_.shape(0));
    decode_counts& k = s.counts;
    k.step = steps_.size() + 1;
    k.self_cache_rows = self_k_.shape(0);
    const std::uint64_t self_proj = 2 * d * (2 * hdk + hdv), self_out = 2 * hdv * d_out;
    k.flops_self_attention = self_proj + 2 * t * hdk + 2 * t * hdv + self_out;
    const std::uint64_t cross_q = 2 * c_d * c_hdk, cross_out = 2 * c_hdv * c_out;
    k.flops_cross_attention = cross_q + 2 * n_src * c_hdk + 2 * n_src * c_hdv + cross_out;
    k.flops_ffn = 2 * f_in * d_ff + 2 * d_ff * f_out;
    k.flops_total = k.flops_self_attention + k.flops_cross_attention + k.flops_ffn;
    // Naive: all t tokens through the block again (scores t × t), encoder K, V again.
    k.flops_without_cache = t * self_proj + 2 * t * t * (hdk + hdv) + t * self_out +  // self-attention
                            t * cross_q + cross_kv_flops() + 2 * t * n_src * (c_hdk + c_hdv) + t * cross_out +
                            t * k.flops_ffn;
    k.cache_values = t * (hdk + hdv) + n_src * (c_hdk + c_hdv);
    k.cache_bytes = k.cache_values * 8;
    steps_.push_back(std::move(s));
    return steps_.back();
}

matrix decoder_session::outputs() const {
    const std::size_t d = steps_.empty() ? w_.self_attention.w_o.shape(1) : steps_[0].output.shape(1);
    matrix out({steps_.size(), d});  // [t, d]
    for (std::size_t i = 0; i < steps_.size(); ++i) xt::view(out, i, xt::all()) = xt::view(steps_[i].output, 0, xt::all());
    return out;
}

std::vector<decode_step> decode_sequence(const matrix& y, const matrix& encoder_output, const decoder_block_weights& w,
                                         const attention_options& cross_options) {
    decoder_session session(encoder_output, w, cross_options);
    for (std::size_t i = 0; i < y.shape(0); ++i) session.step(xt::view(y, xt::range(i, i + 1), xt::all()));
    return session.steps();
}

}  // namespace attn
