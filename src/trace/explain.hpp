// trace/explain.hpp — the per-token walk-through of one query row, as the seed's
// explain() prints it and more: every dot product term by term, the scaling, the
// softmax with its max-shift, exp values and sum, weights with bars, the weighted
// sum of value rows with each contribution, and the check that weights sum to 1.
#pragma once

#include <string>

#include "core/attention.hpp"
#include "trace/stages.hpp"
#include "trace/style.hpp"

namespace attn::trace {

std::string explain_query(const attention_steps& steps, std::size_t query, const run_labels& labels,
                          const style& st);

// '#' × int(w·40), the seed's bar.
std::string weight_bar(double weight);

}  // namespace attn::trace
