// trace/html_report.hpp — one self-contained HTML file for a trace run: no network,
// no external scripts or fonts. It holds the stage tables, a heatmap per head
// where hovering or focusing (Tab) a cell shows its computation — the q·k terms,
// the scaling, the bias and mask, exp of the shifted score and its share of the
// row — and the per-token trace of every query.
#pragma once

#include <string>

#include "trace/trace_report.hpp"

namespace attn::trace {

// Uses o.batch / o.head to restrict what is shown (default: everything).
std::string html_report(const trace_run& run, const report_options& o);

// Escapes &, <, >, " and ' for HTML text and attribute values.
std::string html_escape(const std::string& text);

}  // namespace attn::trace
