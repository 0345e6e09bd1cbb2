// model/bpe.hpp — byte-pair merging inside one pre-token, the way GPT-2's encoder
// merges (openai/gpt-2 encoder.py, npm's gpt-3-encoder): round after round, take the
// adjacent pair with the lowest merge rank and merge every occurrence of it, left to
// right without overlap; stop when no adjacent pair has a rank.
//
// encoder.py rescans the word every round, which is quadratic in the word's length (a
// 1 MB word would never finish). Here the symbols are a linked list and the candidate
// pairs sit in a priority queue keyed by (rank, position), so a word of n bytes costs
// O(n log n). Pairs a round creates join the queue only when the round ends, so a
// file whose merges are not in learning order still gives encoder.py's answer.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace attn::model {

// The merges, by token id: (left, right) → the merge's rank (its line among the
// merges, 0 first) and the id of the merged token.
struct merge_table {
    struct merge {
        std::uint32_t rank;
        std::uint32_t merged;
    };
    std::unordered_map<std::uint64_t, merge> pairs;

    static std::uint64_t key(std::uint32_t left, std::uint32_t right) {
        return (std::uint64_t{left} << 32) | right;
    }
    const merge* find(std::uint32_t left, std::uint32_t right) const {
        const auto it = pairs.find(key(left, right));
        return it == pairs.end() ? nullptr : &it->second;
    }
};

// Merges `symbols` (the ids of one pre-token's bytes) and returns the token ids.
std::vector<std::uint32_t> bpe_merge(const std::vector<std::uint32_t>& symbols, const merge_table& merges);

}  // namespace attn::model
