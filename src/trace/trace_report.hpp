// trace/trace_report.hpp — the terminal report of `attn trace`: for each chosen
// batch item and head, the stage tables (as the lessons print them) and heatmaps;
// or, with a query, the per-token trace of that query.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trace/stages.hpp"
#include "trace/trace_run.hpp"

namespace attn::trace {

struct report_options {
    style st;
    bool truecolor = false;                 // with st.color: 24-bit heatmap colours
    std::optional<std::size_t> batch;       // only this batch item (default: all)
    std::optional<std::size_t> head;        // only this head (default: all)
    std::optional<std::string> query;       // per-token trace of this query (token or index)
    std::vector<stage> tables;              // empty = every stage (masked only with a mask or bias)
    std::vector<stage> heatmaps = {stage::weights};  // stages drawn as heatmaps (score stages only)
};

// Decimals for a stage table of a user's run: Q, K, V get as many decimals as
// their values need (1 to 4: a teacher's 1.0 stays 1.0, an X·W projection shows
// 4); the other stages keep the seed's decimals (-1 = stage default).
int user_stage_decimals(const attention_steps& steps, stage s);

// hook_result of head h or hook_attn_out of batch item b (h ignored) as a table.
table result_table(const trace_run& run, stage st, std::size_t b, std::size_t h, const run_labels& labels);

// Throws std::invalid_argument for a batch/head/query that does not exist.
std::string render_trace_report(const trace_run& run, const report_options& o);

}  // namespace attn::trace
