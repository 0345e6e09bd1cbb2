// model/bpe.cpp — see bpe.hpp. Positions are the indices of the original symbols; a
// merged symbol keeps its left part's index, so index order is left-to-right order.
#include "model/bpe.hpp"

#include <functional>
#include <queue>

namespace attn::model {

namespace {

// A candidate merge of the symbol at `pos` with the one after it, as it was when queued.
struct candidate {
    std::uint32_t rank;
    std::uint32_t pos;
    std::uint32_t left, right;  // the two ids (a later merge may have changed either)
    bool operator>(const candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

using candidate_queue = std::priority_queue<candidate, std::vector<candidate>, std::greater<candidate>>;

constexpr std::uint32_t none = 0xFFFFFFFFu;

// The symbols as a doubly linked list over the original positions.
struct symbol_list {
    std::vector<std::uint32_t> id;    // [n] current token id at each live position
    std::vector<std::uint32_t> next;  // [n] next live position, or none
    std::vector<std::uint32_t> prev;  // [n] previous live position, or none
    std::vector<bool> alive;          // [n] false once merged into its left neighbour
};

// Queues the pair starting at `pos` into `out` when it has a merge.
void propose(const symbol_list& s, const merge_table& merges, std::uint32_t pos, std::vector<candidate>& out) {
    if (pos == none || s.next[pos] == none) return;
    const std::uint32_t l = s.id[pos], r = s.id[s.next[pos]];
    if (const auto* m = merges.find(l, r)) out.push_back({m->rank, pos, l, r});
}

// Is the queued candidate still the pair at its position?
bool still_there(const symbol_list& s, const candidate& c) {
    return s.alive[c.pos] && s.id[c.pos] == c.left && s.next[c.pos] != none && s.id[s.next[c.pos]] == c.right;
}

// Merges the symbol at `pos` with the next one into `merged`.
void merge_at(symbol_list& s, std::uint32_t pos, std::uint32_t merged) {
    const std::uint32_t gone = s.next[pos];
    s.id[pos] = merged;
    s.alive[gone] = false;
    s.next[pos] = s.next[gone];
    if (s.next[gone] != none) s.prev[s.next[gone]] = pos;
}

}  // namespace

std::vector<std::uint32_t> bpe_merge(const std::vector<std::uint32_t>& symbols, const merge_table& merges) {
    const auto n = static_cast<std::uint32_t>(symbols.size());
    if (n < 2) return symbols;
    symbol_list s{symbols, std::vector<std::uint32_t>(n), std::vector<std::uint32_t>(n), std::vector<bool>(n, true)};
    for (std::uint32_t i = 0; i < n; ++i) {
        s.next[i] = (i + 1 < n) ? i + 1 : none;
        s.prev[i] = (i > 0) ? i - 1 : none;
    }
    std::vector<candidate> fresh;  // candidates created by the current round
    for (std::uint32_t i = 0; i + 1 < n; ++i) propose(s, merges, i, fresh);
    candidate_queue queue(std::greater<candidate>{}, std::move(fresh));
    fresh = {};

    // One round: every occurrence of the lowest-ranked pair, left to right.
    while (!queue.empty()) {
        const std::uint32_t rank = queue.top().rank;
        while (!queue.empty() && queue.top().rank == rank) {
            const candidate c = queue.top();
            queue.pop();
            if (!still_there(s, c)) continue;
            merge_at(s, c.pos, merges.find(c.left, c.right)->merged);
            propose(s, merges, s.prev[c.pos], fresh);
            propose(s, merges, c.pos, fresh);
        }
        for (const candidate& c : fresh) queue.push(c);
        fresh.clear();
    }

    std::vector<std::uint32_t> out;  // [n_tokens]
    for (std::uint32_t p = 0; p != none; p = s.next[p]) out.push_back(s.id[p]);
    return out;
}

}  // namespace attn::model
