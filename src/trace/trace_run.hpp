// trace/trace_run.hpp — one `attn trace` computation: every batch item and every
// head of a checked spec, each with all of its stages (core attention_steps), plus
// the per-head results through W_O and their sum when W_O is given.
#pragma once

#include <optional>
#include <vector>

#include "core/attention.hpp"
#include "io/trace_spec.hpp"
#include "trace/stages.hpp"
#include "trace/trace_extras.hpp"

namespace attn::trace {

struct trace_run {
    io::trace_inputs inputs;
    run_labels labels;
    std::size_t batch = 1, heads = 1;
    std::vector<attention_steps> steps;  // [batch · heads], item b·heads + h; q/k/v are per head
    bool has_result = false;             // W_O given: result and attn_out are filled
    std::vector<matrix> result;          // [batch · heads] each [n_q, d_out] = z_h · W_O[h rows]
    std::vector<matrix> attn_out;        // [batch] each [n_q, d_out] = Σ_h result_h
    trace_extras extras;                 // rope, tile, backward, kv_heads (trace/trace_extras.hpp)

    const attention_steps& at(std::size_t b, std::size_t h) const { return steps.at(b * heads + h); }
    std::size_t n_q() const { return inputs.n_q; }
    std::size_t n_k() const { return inputs.n_k; }
};

trace_run run_trace(const io::trace_inputs& in);

// Whether the run has this stage (W_O, rope, tile or backward given when it needs them).
bool stage_available(const trace_run& run, stage s);
// Throws std::invalid_argument "FLAG NAME: the spec has no W_O (…)" when it has not.
void check_available(const trace_run& run, stage s, const char* flag);

// Picks a query row by token text, or by 0-based index when no token has that
// text; throws std::invalid_argument listing the tokens otherwise.
std::size_t find_query_row(const run_labels& labels, const std::string& token);

}  // namespace attn::trace
