// trace/explain.hpp — the per-token walk-through of one query row, as the seed's
// explain() prints it and more: every dot product term by term, the scaling, the
// softmax with its max-shift, exp values and sum, weights with bars, the weighted
// sum of value rows with each contribution, and the check that weights sum to 1.
#pragma once

#include <optional>
#include <string>

#include "core/attention.hpp"
#include "trace/stages.hpp"
#include "trace/style.hpp"

namespace attn::trace {

// Row `row` of steps is the query; `query` (default: row) is its index among the
// labels' query tokens — they differ when the steps hold one query's row only.
std::string explain_query(const attention_steps& steps, std::size_t row, const run_labels& labels, const style& st,
                          std::optional<std::size_t> query = std::nullopt);

// '#' × int(w·40), the seed's bar.
std::string weight_bar(double weight);

}  // namespace attn::trace
