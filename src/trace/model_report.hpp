// trace/model_report.hpp — what `attn model run` and `attn model heads` print besides
// a head's trace (trace/model_head.hpp): the model's next-token predictions and the
// head detector's scores, as tables (trace/table.hpp) and heatmaps (trace/heatmap.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "model/traced_forward.hpp"
#include "model/head_detector.hpp"
#include "trace/style.hpp"

namespace attn::trace {

// The readable label of a token id (a tokenizer's text, or "#id").
using token_label = std::function<std::string(int id)>;

// Per sequence of the batch: the greedy next token at every position (token → most
// likely next token, its probability), then the top k next tokens after the last
// position with probability and logit.
template <class T>
std::string render_predictions(const model::forward_acts<T>& acts, const token_label& label, std::size_t top_k,
                               const style& st);

// The k most likely ids at position (b, pos), most likely first (ties: lower id first).
template <class T>
std::vector<int> top_tokens(const model::forward_acts<T>& acts, std::size_t b, std::size_t pos, std::size_t k);

// The three scores of every layer × head: one table (rows layers, columns heads) and one
// heatmap (0 … 1) per kind, and the best head of each kind. Layers and heads are counted
// from `first`: 0 for `attn model heads` (as the hook names blocks.L), 1 in lessons.
std::string render_head_scores(const model::head_scores& s, const std::string& input_note, const style& st,
                               std::size_t first = 0);

// Every hook a model of this config keeps (model/hooks.hpp), in forward order: its
// name, its shape for `positions` tokens of one sequence, and what it holds. Blocks
// after the first are summarised in one line (their hooks are the first block's).
std::string render_hook_table(const model::architecture& config, std::size_t positions, const style& st);

}  // namespace attn::trace
