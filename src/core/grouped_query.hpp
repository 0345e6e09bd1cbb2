// core/grouped_query.hpp — multi-query and grouped-query attention (Shazeer 2019;
// Ainslie et al. 2023; lesson 18).
//
// H query heads share G key/value heads (G divides H): query head h reads the K/V
// head g = h / (H/G). G = H is multi-head attention, G = 1 multi-query attention,
// 1 < G < H grouped-query attention. Only K and V shrink:
//   Q [n_q, H·d_k]    K [n_k, G·d_k]    V [n_k, G·d_v]    concat [n_q, H·d_v]
// and with them the KV cache of decoding (lesson 13): per layer and token,
//   2 (K and V) · G · d_head values instead of 2 · H · d_head.
#pragma once

#include <cstdint>
#include <vector>

#include "core/attention.hpp"

namespace attn {

// The K/V head query head h reads; throws shape_error unless kv_heads divides heads.
std::size_t kv_group_of(std::size_t head, std::size_t heads, std::size_t kv_heads);

struct grouped_query_steps {
    std::size_t heads = 0, kv_heads = 0, d_k = 0, d_v = 0;  // d_k, d_v per head
    std::vector<std::size_t> group;     // [H] the K/V head of each query head
    std::vector<attention_steps> head;  // [H] every stage of every query head
    matrix concat;                      // [n_q, H·d_v]
};

// Throws shape_error when the columns do not split into H (Q) and G (K, V) heads.
grouped_query_steps grouped_query_attention(const matrix& q, const matrix& k, const matrix& v, std::size_t heads,
                                            std::size_t kv_heads, const attention_options& options = {});

// The KV cache of a decoder: 2 (K and V) · layers · kv_heads · d_head · tokens · batch
// values, times bytes per value (2 for bf16/fp16, 8 for lesson 13's doubles).
struct kv_cache_size {
    std::uint64_t values = 0;
    std::uint64_t bytes = 0;
};
kv_cache_size kv_cache(std::uint64_t layers, std::uint64_t kv_heads, std::uint64_t d_head, std::uint64_t tokens,
                       std::uint64_t batch, std::uint64_t bytes_per_value);

}  // namespace attn
