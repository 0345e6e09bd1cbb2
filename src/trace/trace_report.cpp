// trace/trace_report.cpp — see trace_report.hpp.
#include "trace/trace_report.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include <limits>

#include "io/terminal_safe.hpp"
#include "trace/explain.hpp"
#include "trace/stage_view.hpp"
#include "trace/heatmap.hpp"
#include "trace/number_format.hpp"

namespace attn::trace {

namespace {

std::string section_title(const trace_run& r, std::size_t b, std::size_t h) {
    std::string t = r.labels.title;
    if (r.batch > 1) t += fmt::format(" · batch {} of {}", b, r.batch);
    if (r.heads > 1) t += fmt::format(" · head {} of {}", h + 1, r.heads);  // heads from 1, as in the lessons
    return t;
}

// v counts from 0; --head is given counting from 1 (as the lessons count heads), --batch from 0.
std::size_t check_index(const std::optional<std::size_t>& v, std::size_t n, const char* what) {
    const std::size_t from = what == std::string("head") ? 1 : 0;
    if (v && *v >= n)
        throw attn::error(fmt::format("--{} {} does not exist: the spec has {} {} ({}..{})", what, *v + from, n,
                                                std::string(what == std::string("batch") ? "batch item" : what) +
                                                    (n == 1 ? "" : "s"),
                                                from, n - 1 + from));
    return v ? *v : 0;
}

}  // namespace

namespace {

std::string score_stage_note() {
    std::string names;
    for (const auto& si : all_stages())
        if (si.is_score) names += (names.empty() ? "" : ", ") + std::string(si.hook);
    return "only the score stages (" + names + ") are [query × key] maps";
}

}  // namespace

int user_stage_decimals(const attention_steps& steps, stage s) {
    const matrix* m = s == stage::q ? &steps.q : s == stage::k ? &steps.k : s == stage::v ? &steps.v : nullptr;
    return m ? exact_decimals(*m) : -1;
}

void check_report_options(const trace_run& r, const report_options& o) {
    check_index(o.batch, r.batch, "batch");
    check_index(o.head, r.heads, "head");
    if (o.query) find_query_row(r.labels, *o.query);
    for (stage s : o.heatmaps)
        if (!stage_info_of(s).is_score) throw attn::error(std::string("--heatmap ") + stage_info_of(s).hook + ": " + score_stage_note());
    for (stage s : o.tables) check_available(r, s, "--stage");
}

namespace {

// The tables, heatmaps and notes of one head.
std::string head_report(const trace_run& r, const report_options& o, const std::vector<stage>& tables, std::size_t b,
                        std::size_t h) {
    const auto wanted = [&](stage s) { return std::find(tables.begin(), tables.end(), s) != tables.end(); };
    const std::size_t limit = o.st.full ? std::numeric_limits<std::size_t>::max() : view_limit;
    run_labels l = labels_on_screen(r.labels);  // names from files: shown, never sent raw
    l.title = io::terminal_safe(section_title(r, b, h));
    std::string out = o.st.heading("=== " + l.title + " ===") + "\n";
    out += fmt::format("n_q = {}, n_k = {}, d_head = {}, scale = ÷ {}\n\n", r.n_q(), r.n_k(), r.inputs.d_head,
                       compact(r.scale(), 6));
    for (stage st : tables)
        if (st <= stage::z)
            out += render(stage_view_table(r, st, b, h, l, user_stage_decimals(r, st, b, h), limit), o.st) +
                   elision_note(r, st, limit) + "\n";
    const heatmap_style hs{o.st.color, o.st.color && o.truecolor};
    for (stage st : o.heatmaps) out += render_heatmap_view(r, st, b, h, l, hs, o.st.full ? 1000000 : o.st.width) + "\n";
    std::size_t notes = 0;
    for (std::size_t i = 0; i < r.n_q(); ++i)
        if (r.row_fully_masked(b, h, i) && notes++ < view_limit)
            out += "note: every key is blocked for query '" + l.query_tokens[i] + "': its weights are 0, not 0/0\n\n";
    if (notes > view_limit) out += fmt::format("note: {} more queries see no key at all\n\n", notes - view_limit);
    out += render_extras(r, b, h, o.st, wanted);  // rope, tile, backward, kv_heads (trace_extras.hpp)
    if (wanted(stage::result))
        out += render(stage_view_table(r, stage::result, b, h, l, stage_info_of(stage::result).decimals, limit), o.st) +
               elision_note(r, stage::result, limit) + "\n";
    return out;
}

}  // namespace

std::string render_trace_report(const trace_run& r, const report_options& o) {
    check_report_options(r, o);
    std::optional<std::size_t> row;
    if (o.query) row = find_query_row(r.labels, *o.query);
    const bool masked_matters = r.inputs.has_mask || !r.inputs.bias.empty();
    std::vector<stage> tables = o.tables;
    if (tables.empty())
        for (const auto& si : all_stages())
            if ((si.id != stage::scores_masked || masked_matters) && stage_available(r, si.id)) tables.push_back(si.id);
    const auto wanted = [&](stage s) { return std::find(tables.begin(), tables.end(), s) != tables.end(); };
    const std::size_t limit = o.st.full ? std::numeric_limits<std::size_t>::max() : view_limit;

    std::string out;
    for (std::size_t b = 0; b < r.batch; ++b) {
        if (o.batch && *o.batch != b) continue;
        for (std::size_t h = 0; h < r.heads; ++h) {
            if (o.head && *o.head != h) continue;
            if (row) {
                run_labels l = labels_on_screen(r.labels);  // names from files: shown, never sent raw
                l.title = io::terminal_safe(section_title(r, b, h));
                // In one-query mode the steps hold that query's row only (row 0).
                out += explain_query(r.head_steps(b, h), r.one_query ? 0 : *row, l, o.st, *row) + "\n";
                out += explain_extras_query(r, b, h, *row, o.st);  // tile, backward (trace_extras.hpp)
                continue;
            }
            out += head_report(r, o, tables, b, h);
        }
        if (r.has_result && !row && !o.head && (r.heads > 1 || !o.tables.empty()) && wanted(stage::attn_out)) {
            run_labels l = labels_on_screen(r.labels);  // names from files: shown, never sent raw
            if (r.batch > 1) l.title += fmt::format(" · batch {} of {}", b, r.batch);
            out += render(stage_view_table(r, stage::attn_out, b, 0, l, stage_info_of(stage::attn_out).decimals, limit), o.st) +
                   elision_note(r, stage::attn_out, limit) + "\n";
        }
    }
    return out;
}

}  // namespace attn::trace
