// core/window.cpp — see window.hpp.
#include "core/window.hpp"

namespace attn {

bool_matrix window_mask(std::size_t n_q, std::size_t n_k, std::size_t w, bool causal, std::size_t offset) {
    bool_matrix m({n_q, n_k});  // [n_q, n_k]
    for (std::size_t i = 0; i < n_q; ++i)
        for (std::size_t j = 0; j < n_k; ++j) {
            const std::size_t pos = i + offset;  // the query's position among the keys
            const bool behind = j <= pos && pos - j <= w;
            const bool ahead = j > pos && j - pos <= w;
            m(i, j) = behind || (!causal && ahead);
        }
    return m;
}

std::uint64_t visible_pairs(const bool_matrix& attend) {
    std::uint64_t n = 0;
    for (bool b : attend) n += b ? 1 : 0;
    return n;
}

std::uint64_t windowed_attention_macs(std::size_t n, std::size_t w, bool causal, std::size_t d_k, std::size_t d_v) {
    // Counted in closed form per row, so n = 10⁶ needs no n × n mask.
    std::uint64_t pairs = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t back = i < w ? i : w;
        const std::size_t fwd = causal ? 0 : (n - 1 - i < w ? n - 1 - i : w);
        pairs += back + fwd + 1;
    }
    return pairs * (d_k + d_v);
}

std::size_t receptive_field(std::size_t w, std::size_t layers) { return w * layers; }

}  // namespace attn
