// trace/trace_report.hpp — the terminal report of `attn trace`: for each chosen
// batch item and head, the stage tables (as the lessons print them, elided past
// view_limit rows or columns — trace/stage_view.hpp) and heatmaps (downsampled to
// the terminal's width); or, with a query, the per-token trace of that query.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/stages.hpp"
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

// Checks --batch, --head, --query, --stage and --heatmap against the run before any
// work is done; throws std::invalid_argument naming what does not exist.
void check_report_options(const trace_run& run, const report_options& o);

// Decimals for a stage table of a user's run: Q, K, V get as many decimals as
// their values need (1 to 4: a teacher's 1.0 stays 1.0, an X·W projection shows
// 4); the other stages keep the seed's decimals (-1 = stage default).
int user_stage_decimals(const attention_steps& steps, stage s);

// Throws std::invalid_argument for a batch/head/query that does not exist.
std::string render_trace_report(const trace_run& run, const report_options& o);

}  // namespace attn::trace
