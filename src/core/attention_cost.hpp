// core/attention_cost.hpp — what one attention of N_q queries over N_k keys costs,
// counted operation by operation (the cross-attention chapter's "Complexity
// Analysis": Q·Kᵀ, softmax, weights·V). Cross-attention is the N_q ≠ N_k case; with
// N_q = N_k = N it is self-attention's O(N²·d). Counts, not timings: the same on
// every machine.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn {

struct attention_cost {
    std::uint64_t score_macs = 0;      // Q·Kᵀ: N_q · N_k · d_k multiply-adds
    std::uint64_t softmax_exps = 0;    // one exp per score: N_q · N_k
    std::uint64_t output_macs = 0;     // weights·V: N_q · N_k · d_v multiply-adds
    std::uint64_t score_entries = 0;   // the weight matrix held at once: N_q · N_k numbers
    std::uint64_t output_entries = 0;  // the output: N_q · d_v numbers
};

attention_cost attention_cost_of(std::size_t n_q, std::size_t n_k, std::size_t d_k, std::size_t d_v);

}  // namespace attn
