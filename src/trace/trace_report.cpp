// trace/trace_report.cpp — see trace_report.hpp.
#include "trace/trace_report.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "trace/explain.hpp"
#include "trace/heatmap.hpp"
#include "trace/number_format.hpp"

namespace attn::trace {

namespace {

std::string section_title(const trace_run& r, std::size_t b, std::size_t h) {
    std::string t = r.labels.title;
    if (r.batch > 1) t += fmt::format(" · batch {} of {}", b, r.batch);
    if (r.heads > 1) t += fmt::format(" · head {} of {}", h, r.heads);
    return t;
}

std::size_t check_index(const std::optional<std::size_t>& v, std::size_t n, const char* what) {
    if (v && *v >= n)
        throw std::invalid_argument(fmt::format("--{} {} does not exist: the spec has {} {} (0..{})", what, *v, n,
                                                std::string(what == std::string("batch") ? "batch item" : what) +
                                                    (n == 1 ? "" : "s"),
                                                n - 1));
    return v ? *v : 0;
}

}  // namespace

table result_table(const trace_run& r, stage st, std::size_t b, std::size_t h, const run_labels& l) {
    const matrix& m = st == stage::result ? r.result[b * r.heads + h] : r.attn_out[b];
    const stage_frame f = frame_of(st, l);
    return make_table(f.title, f.axes, f.corner, *f.row_labels, dimension_labels(m.shape(1)), m, info(st).decimals);
}

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
    if (!m) return -1;
    for (int d = 1; d < 4; ++d) {
        const double p = std::pow(10.0, d);
        bool exact = true;
        for (double x : *m) exact = exact && std::fabs(x * p - std::round(x * p)) < 1e-9 * std::max(1.0, std::fabs(x * p));
        if (exact) return d;
    }
    return 4;
}

std::string render_trace_report(const trace_run& r, const report_options& o) {
    check_index(o.batch, r.batch, "batch");
    check_index(o.head, r.heads, "head");
    std::optional<std::size_t> row;
    if (o.query) row = find_query_row(r.labels, *o.query);
    for (stage s : o.heatmaps)
        if (!info(s).is_score) throw std::invalid_argument(std::string("--heatmap ") + info(s).hook + ": " + score_stage_note());
    for (stage s : o.tables) check_available(r, s, "--stage");

    const bool masked_matters = r.inputs.has_mask || !r.inputs.bias.empty();
    std::vector<stage> tables = o.tables;
    if (tables.empty())
        for (const auto& si : all_stages())
            if ((si.id != stage::scores_masked || masked_matters) && stage_available(r, si.id)) tables.push_back(si.id);
    const auto wanted = [&](stage s) { return std::find(tables.begin(), tables.end(), s) != tables.end(); };

    const heatmap_style hs{o.st.color, o.st.color && o.truecolor};
    std::string out;
    for (std::size_t b = 0; b < r.batch; ++b) {
        if (o.batch && *o.batch != b) continue;
        for (std::size_t h = 0; h < r.heads; ++h) {
            if (o.head && *o.head != h) continue;
            const attention_steps& s = r.at(b, h);
            run_labels l = r.labels;
            l.title = section_title(r, b, h);
            if (row) {
                out += explain_query(s, *row, l, o.st) + "\n";
                continue;
            }
            out += o.st.heading("=== " + l.title + " ===") + "\n";
            out += fmt::format("n_q = {}, n_k = {}, d_head = {}, scale = ÷ {}\n\n", r.n_q(), r.n_k(), s.d_k(), compact(s.scale, 6));
            for (stage st : tables)
                if (st <= stage::z) out += render(stage_table(s, st, l, user_stage_decimals(s, st)), o.st) + "\n";
            for (stage st : o.heatmaps) {
                heatmap_input in;
                in.title = std::string("Heatmap of ") + info(st).hook + " (" + info(st).caption + ")";
                in.row_labels = l.query_tokens;
                in.col_labels = l.key_tokens;
                in.values = &stage_matrix(s, st);
                in.attend = st == stage::scores_masked || st == stage::weights ? &s.attend : nullptr;
                in.unit_range = st == stage::weights;
                out += render_heatmap(in, hs) + "\n";
            }
            for (std::size_t i = 0; i < r.n_q(); ++i)
                if (s.row_fully_masked[i])
                    out += "note: every key is blocked for query '" + l.query_tokens[i] + "': its weights are 0, not 0/0\n\n";
            out += render_extras(r, b, h, o.st, wanted);  // rope, tile, backward, kv_heads (trace_extras.hpp)
            if (wanted(stage::result)) out += render(result_table(r, stage::result, b, h, l), o.st) + "\n";
        }
        if (r.has_result && !row && !o.head && (r.heads > 1 || !o.tables.empty()) && wanted(stage::attn_out)) {
            run_labels l = r.labels;
            if (r.batch > 1) l.title += fmt::format(" · batch {} of {}", b, r.batch);
            out += render(result_table(r, stage::attn_out, b, 0, l), o.st) + "\n";
        }
    }
    return out;
}

}  // namespace attn::trace
