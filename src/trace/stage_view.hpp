// trace/stage_view.hpp — what the terminal report of `attn trace` shows of a stage
// at any size, read straight from the trace run (never a copy of a whole stage):
//   - a stage table elided like NumPy's printing: past `view_limit` rows (or columns)
//     only the first and last `view_edge` are formatted, with a "…" row (column)
//     between; `--full` (style::full) shows everything;
//   - a heatmap downsampled to the terminal's width: each cell is the maximum of a
//     block of queries × keys (the legend says so).
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "trace/heatmap.hpp"
#include "trace/table.hpp"
#include "trace/trace_run.hpp"

namespace attn::trace {

// Axes longer than this are elided (docs/trace.md, "Stages").
constexpr std::size_t view_limit = 12;
// Rows (columns) shown at each end of an elided axis.
constexpr std::size_t view_edge = 5;

// The indices of an axis of length n shown with this limit; gap_after is the position in
// `shown` after which "…" goes (npos when nothing is elided).
struct axis_view {
    std::vector<std::size_t> shown;
    std::size_t gap_after = std::numeric_limits<std::size_t>::max();
    bool elided() const { return gap_after != std::numeric_limits<std::size_t>::max(); }
};
axis_view view_axis(std::size_t n, std::size_t limit);

// The table of forward stage s (q … attn_out) of batch item b, head h, with only the
// shown cells formatted; `limit` = max() shows everything. Its shape is the whole slice.
table stage_view_table(const trace_run& run, stage s, std::size_t b, std::size_t h, const run_labels& labels, int decimals,
                       std::size_t limit);

// "  … 4086 more rows and 4086 more columns: see all with --full, one stage with --stage, one query with --query\n"
// or "" when nothing was elided.
std::string elision_note(const trace_run& run, stage s, std::size_t limit);

// Decimals of a stage table of a user's run: Q, K, V get as many as their values need
// (1 to 4: a teacher's 1.0 stays 1.0, an X·W projection shows 4); the others keep the
// vocabulary's decimals.
int user_stage_decimals(const trace_run& run, stage s, std::size_t b, std::size_t h);

// The heatmap of score stage s for (b, h), downsampled by block max when the whole
// map does not fit `width` terminal columns (or max_rows rows), rendered.
std::string render_heatmap_view(const trace_run& run, stage s, std::size_t b, std::size_t h, const run_labels& labels,
                                const heatmap_style& st, std::size_t width, std::size_t max_rows = 32);

}  // namespace attn::trace
