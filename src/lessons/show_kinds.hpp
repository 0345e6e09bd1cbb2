// lessons/show_kinds.hpp — the registry of show kinds ([[step.show]] kind = "...")
// and the small checked accessors every show kind uses. Each show_*.cpp file
// contributes a family of kinds; a new kind is one row in its family (render
// function, keys, one line, and a check when check_references is not enough);
// a new family is one function declared here and listed in show_kinds.cpp.
// `attn lesson check` and the loader then know its keys. Internal to src/lessons.
#pragma once

#include <string>
#include <vector>

#include "lessons/lesson.hpp"
#include "trace/style.hpp"

namespace attn::lessons::show {

using show_fn = std::string (*)(const lesson&, const show_item&, const trace::style&);
// Validates an item against the loaded lesson without drawing anything: throws
// lesson_error (via bad()) at the offending key. Run for every item at load time,
// so a lesson that loads never fails mid-way, and by `attn lesson check`.
using check_fn = void (*)(const lesson&, const show_item&);

// The check every kind gets unless its row names its own: each key a show kind
// uses in one meaning everywhere is checked in that meaning (run, runs, matrix,
// matrices, block: names that exist; token: a query of 'run'; rows, columns:
// token lists, as many as the matrix has rows / columns; decimals 0..8; title,
// axes, corner: strings). A kind's own check calls it and adds what is its own.
void check_references(const lesson& l, const show_item& item);

struct show_kind {
    std::string name;
    show_fn render;
    std::vector<std::string> required;  // besides "kind"
    std::vector<std::string> optional;
    std::string what;                   // one line for messages and the teachers' guide
    check_fn check = check_references;
};

// Every kind, from every family below.
const std::vector<show_kind>& all_kinds();
const show_kind* find_kind(const std::string& name);

std::vector<show_kind> basic_kinds();    // show_basic.cpp: matrix, stage, scale_columns, compare, trace
std::vector<show_kind> mask_kinds();     // show_mask.cpp: mask_grid, next_token, same_numbers
std::vector<show_kind> reading_kinds();  // show_reading.cpp: strongest, patch_grid
std::vector<show_kind> model_kinds();    // show_model.cpp: dot_growth, spread, permutation, sublayers,
                                         //   decode_steps, shape_table
std::vector<show_kind> backward_kinds();  // show_backward.cpp: gradient, softmax_backward_row, saturation
std::vector<show_kind> tiled_kinds();     // show_tiled.cpp: online_softmax, tiled_output, tiled_memory
std::vector<show_kind> rope_kinds();      // show_rope.cpp: rope_rotation, rope_shift, rope_run
std::vector<show_kind> grouped_kinds();   // show_grouped.cpp: kv_cache_groups, grouped_heads
std::vector<show_kind> window_kinds();    // show_window.cpp: window_run, window_cost, receptive_field
std::vector<show_kind> source_kinds();    // show_source.cpp: weighted_sum, cross_cost
std::vector<show_kind> trained_kinds();   // show_trained.cpp: model_head, greedy_decode, head_scores,
                                          //   head_ablation (lessons 20–22, built-in checkpoints)
std::vector<show_kind> circuit_kinds();   // show_circuits.cpp: score_terms, composition, head_writes,
                                          //   logit_attribution, head_patching (lessons 24–26)

// Throws lesson_error at the item (or at its `key` when given and present).
[[noreturn]] void bad(const show_item& item, const std::string& message, const std::string& key = "");

std::string need_string(const show_item& item, const std::string& key);
std::string opt_string(const show_item& item, const std::string& key, const std::string& fallback);
int opt_decimals(const show_item& item, int fallback);  // 'decimals', 0..8
bool opt_bool(const show_item& item, const std::string& key, bool fallback);
std::vector<std::string> need_strings(const show_item& item, const std::string& key, std::size_t count);

const attention_run& need_run(const lesson& l, const show_item& item, const std::string& key = "run");
const matrix& need_matrix(const lesson& l, const show_item& item, const std::string& key = "matrix");
// The token list named by `key`, which must hold n tokens.
const std::vector<std::string>& need_tokens(const lesson& l, const show_item& item, const std::string& key,
                                            std::size_t n);

// " (did you mean 'weights'?)" for a mistyped stage name, or "".
std::string stage_hint(const std::string& name);

// A query of a run by its token or 0-based index; throws std::invalid_argument naming the queries.
std::size_t find_query(const attention_run& run, const std::string& token);
// The query named by the item's `key` (default 'token'); a wrong one is reported at that key.
std::size_t need_query(const attention_run& run, const show_item& item, const std::string& key = "token");

}  // namespace attn::lessons::show
