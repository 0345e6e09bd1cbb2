// core/grouped_query.cpp — see grouped_query.hpp.
#include "core/grouped_query.hpp"

#include <string>

#include <xtensor/xview.hpp>

#include "core/shape_error.hpp"

namespace attn {

std::size_t kv_group_of(std::size_t head, std::size_t heads, std::size_t kv_heads) {
    if (kv_heads == 0 || heads == 0 || heads % kv_heads != 0)
        throw shape_error("kv_heads G = " + std::to_string(kv_heads) + " must divide the query heads H = " +
                          std::to_string(heads));
    return head / (heads / kv_heads);
}

grouped_query_steps grouped_query_attention(const matrix& q, const matrix& k, const matrix& v, std::size_t heads,
                                            std::size_t kv_heads, const attention_options& options) {
    kv_group_of(0, heads, kv_heads);  // checks that G divides H
    if (q.shape(1) % heads != 0)
        throw shape_error("Q has " + std::to_string(q.shape(1)) + " columns, not a multiple of H = " +
                          std::to_string(heads));
    const std::size_t d_k = q.shape(1) / heads;
    if (k.shape(1) != kv_heads * d_k)
        throw shape_error("K has " + std::to_string(k.shape(1)) + " columns, expected G·d_k = " +
                          std::to_string(kv_heads) + "·" + std::to_string(d_k));
    if (v.shape(1) % kv_heads != 0)
        throw shape_error("V has " + std::to_string(v.shape(1)) + " columns, not a multiple of G = " +
                          std::to_string(kv_heads));
    const std::size_t d_v = v.shape(1) / kv_heads;

    grouped_query_steps s;
    s.heads = heads;
    s.kv_heads = kv_heads;
    s.d_k = d_k;
    s.d_v = d_v;
    s.concat = xt::zeros<double>({q.shape(0), heads * d_v});  // [n_q, H·d_v]
    // One pass per query head: its own Q columns, its group's K and V columns.
    for (std::size_t h = 0; h < heads; ++h) {
        const std::size_t g = kv_group_of(h, heads, kv_heads);
        const matrix q_h = xt::view(q, xt::all(), xt::range(h * d_k, (h + 1) * d_k));  // [n_q, d_k]
        const matrix k_g = xt::view(k, xt::all(), xt::range(g * d_k, (g + 1) * d_k));  // [n_k, d_k]
        const matrix v_g = xt::view(v, xt::all(), xt::range(g * d_v, (g + 1) * d_v));  // [n_k, d_v]
        s.group.push_back(g);
        s.head.push_back(scaled_dot_product_attention(q_h, k_g, v_g, options));
        xt::view(s.concat, xt::all(), xt::range(h * d_v, (h + 1) * d_v)) = s.head.back().output;
    }
    return s;
}

kv_cache_size kv_cache(std::uint64_t layers, std::uint64_t kv_heads, std::uint64_t d_head, std::uint64_t tokens,
                       std::uint64_t batch, std::uint64_t bytes_per_value) {
    kv_cache_size c;
    c.values = 2 * layers * kv_heads * d_head * tokens * batch;
    c.bytes = c.values * bytes_per_value;
    return c;
}

}  // namespace attn
