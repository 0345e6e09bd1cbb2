// model/head_detector.hpp — which heads of a model behave as previous-token,
// duplicate-token or induction heads, scored as TransformerLens's head_detector
// (transformer_lens/head_detector.py, error_measure "mul", BOS and current token
// not excluded) scores them:
//
//   score(layer, head) = Σ_ij pattern_ij · D_ij / Σ_ij pattern_ij     (Σ pattern = P)
//
// the share of the head's attention that falls on the cells of a detection pattern D
// ([P, P], lower triangular, 0/1) built from the tokens:
//   previous token   D_ij = 1 when j = i − 1
//   duplicate token  D_ij = 1 when j < i and token_j = token_i
//   induction        D_ij = 1 when 1 ≤ j ≤ i and token_{j−1} = token_i, j − 1 < i
//                    (the duplicate pattern shifted one column right: attend to the
//                    token after an earlier copy of the current one)
// With several sequences the scores are averaged over them (as detect_head does for a
// list). The usual input is random tokens repeated twice ([r₁ … rₙ r₁ … rₙ]), where
// an induction head scores near 1 on the second half.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/traced_forward.hpp"

namespace attn::model {

enum class head_kind { previous_token, duplicate_token, induction };

// D for one sequence, [P, P] row-major (query rows, key columns).
std::vector<double> detection_pattern(head_kind kind, const std::vector<int>& tokens);

struct head_scores {
    std::size_t n_layer = 0, n_head = 0;
    std::vector<double> previous_token, duplicate_token, induction;  // each [n_layer, n_head]
};

// Scores of every layer × head from a forward's hook_pattern, averaged over its batch.
template <class T>
head_scores detect_heads(const forward_acts<T>& acts, const architecture& config);

// n tokens drawn uniformly from 0 … vocab_size − 1 (core/prng, the same on every
// platform for a seed), then the same n again: [2n].
std::vector<int> repeated_random_tokens(std::size_t vocab_size, std::size_t n, std::uint64_t seed);

}  // namespace attn::model
