// model/head_detector.cpp — detection patterns and head scores (see head_detector.hpp).
#include "model/head_detector.hpp"

#include "core/prng.hpp"

namespace attn::model {

std::vector<double> detection_pattern(head_kind kind, const std::vector<int>& t) {
    const std::size_t P = t.size();
    std::vector<double> d(P * P, 0.0);  // [P, P]
    for (std::size_t i = 0; i < P; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            bool on = false;
            switch (kind) {
                case head_kind::previous_token: on = j + 1 == i; break;
                case head_kind::duplicate_token: on = j < i && t[j] == t[i]; break;
                case head_kind::induction: on = j >= 1 && j - 1 < i && t[j - 1] == t[i]; break;
            }
            d[i * P + j] = on ? 1.0 : 0.0;
        }
    return d;
}

namespace {

// Σ pattern·D / Σ pattern for one [P, P] map.
template <class T>
double similarity(const T* pattern, const std::vector<double>& d, std::size_t P) {
    double hit = 0, total = 0;
    for (std::size_t i = 0; i < P * P; ++i) {
        hit += static_cast<double>(pattern[i]) * d[i];
        total += static_cast<double>(pattern[i]);
    }
    return total > 0 ? hit / total : 0.0;
}

}  // namespace

template <class T>
head_scores detect_heads(const forward_acts<T>& a, const architecture& c) {
    head_scores s;
    s.n_layer = c.n_layer;
    s.n_head = c.n_head;
    const std::size_t LH = c.n_layer * c.n_head, P = a.n_pos;
    s.previous_token.assign(LH, 0.0);
    s.duplicate_token.assign(LH, 0.0);
    s.induction.assign(LH, 0.0);
    for (std::size_t b = 0; b < a.batch; ++b) {
        const auto prev = detection_pattern(head_kind::previous_token, a.tokens[b]);
        const auto dup = detection_pattern(head_kind::duplicate_token, a.tokens[b]);
        const auto ind = detection_pattern(head_kind::induction, a.tokens[b]);
        for (std::size_t l = 0; l < c.n_layer; ++l)
            for (std::size_t h = 0; h < c.n_head; ++h) {
                const T* map = a.blocks[l].pattern.data() + (b * c.n_head + h) * P * P;  // [P, P]
                const std::size_t at = l * c.n_head + h;
                s.previous_token[at] += similarity(map, prev, P) / static_cast<double>(a.batch);
                s.duplicate_token[at] += similarity(map, dup, P) / static_cast<double>(a.batch);
                s.induction[at] += similarity(map, ind, P) / static_cast<double>(a.batch);
            }
    }
    return s;
}

template head_scores detect_heads<float>(const forward_acts<float>&, const architecture&);
template head_scores detect_heads<double>(const forward_acts<double>&, const architecture&);

std::vector<int> repeated_random_tokens(std::size_t vocab_size, std::size_t n, std::uint64_t seed) {
    prng rng(seed);
    std::vector<int> t(2 * n);
    for (std::size_t i = 0; i < n; ++i)
        t[i] = t[n + i] = static_cast<int>(rng.uniform_int(0, static_cast<std::int64_t>(vocab_size) - 1));
    return t;
}

}  // namespace attn::model
