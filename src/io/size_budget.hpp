// io/size_budget.hpp — how many numbers one run may hold, checked before anything is
// allocated. One budget for the whole run: every array a run allocates from its
// inputs (a .npy, a CSV, a trace's score stages, a lesson's random matrix) is charged
// to it, so two inputs each within it cannot together exceed it. A .npy or CSV input, and the score stages an `attn trace` run computes,
// are refused up front (with the file and the size) past the budget instead of
// taking gigabytes and ending in std::bad_alloc.
//
// The budget is a count of elements (doubles): default 2^28 = 268,435,456 (2 GiB as
// float64), changed with `attn trace --max-elements N`. It bounds
//   * each input array (a .npy header's shape, a CSV's cells);
//   * all [n_q, n_k] score stages of a trace together: raw, scaled, masked scores and
//     weights, for every batch item and head: 4 · batch · heads · n_q · n_k.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "io/input_error.hpp"

namespace attn::io {

constexpr std::size_t default_max_elements = std::size_t{1} << 28;

// The [n_q, n_k] stages a trace keeps per batch item and head (raw, scaled, masked, weights).
constexpr std::size_t score_stages = 4;

// The process-wide budget (set once by the CLI from --max-elements; setting it starts
// the count of what the run holds from 0).
std::size_t max_elements();
void set_max_elements(std::size_t n);

// The product of `dims`, or nothing when it overflows std::size_t.
std::optional<std::size_t> checked_product(const std::vector<std::size_t>& dims);

// Throws input_error at `where` when `count` (nothing = overflowed) exceeds the budget;
// `what` says what would be allocated ("the array [30000 × 30000]").
void check_budget(std::optional<std::size_t> count, const std::string& what, const source_pos& where);

// `attn trace --html` writes every cell of every stage and a per-token trace of each
// query: past this many query·key cells (batch items × heads shown × n_q × n_k) the
// page is refused (it took 375 s and 6.9 GB at n = 3000).
constexpr std::size_t max_html_cells = 250000;
void check_html_cells(std::size_t batches_shown, std::size_t heads_shown, std::size_t n_q, std::size_t n_k);

// Charges `count` numbers to the run's budget (what this run already holds plus
// count ≤ max_elements()), or throws input_error "too-large" at `where` naming what,
// the size, what the run already holds, the budget and --max-elements. Memory is
// never given back: the budget bounds everything a run allocates, freed or not.
void charge_budget(std::optional<std::size_t> count, const std::string& what, const source_pos& where);
// The same, returning the refusal instead of throwing (loaders that collect problems).
// The refusal check_budget would throw, returned instead (loaders that collect problems,
// e.g. a lesson's random_normal: small matrices, checked one by one, not charged).
// `remedy` replaces "(raise it with --max-elements, or use smaller inputs)".
std::optional<std::string> over_budget(std::optional<std::size_t> count, const std::string& what,
                                       const char* remedy = nullptr);
std::size_t charged_elements();
// A new run starts holding nothing (parse_trace_spec: one spec, one run; a process
// that traces several specs, as the tests and fuzzers do, is several runs).
void reset_charged_elements();

// The score stages of a trace: 4 · batch · heads · n_q · n_k elements (charged).
void check_trace_budget(std::size_t batch, std::size_t heads, std::size_t n_q, std::size_t n_k, const source_pos& where);

}  // namespace attn::io
