// trace/stage_view.cpp — see stage_view.hpp. Every value goes through stage_row, one
// row at a time, so a view of a 4096 × 4096 stage formats 11 × 11 cells and reads
// 11 rows (the heatmap reads every row once to take block maxima).
#include "trace/stage_view.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "trace/number_format.hpp"
#include "trace/text_width.hpp"

namespace attn::trace {

namespace {

const char* const elided_cell = "…";

// One row of a forward stage as doubles, whatever the run's dtype.  // [cols]
void read_row(const trace_run& r, stage s, std::size_t b, std::size_t h, std::size_t i, std::vector<double>& out) {
    const std::size_t n = r.cols(s);
    out.resize(n);
    if (r.data64) {
        std::vector<double> scratch(n);
        const double* p = stage_row<double>(r, s, b, h, i, scratch.data());
        std::copy(p, p + n, out.begin());
    } else {
        std::vector<float> scratch(n);
        const float* p = stage_row<float>(r, s, b, h, i, scratch.data());
        std::copy(p, p + n, out.begin());
    }
}

template <class Label>
std::vector<std::string> shown_labels(const axis_view& v, Label label) {
    std::vector<std::string> out;
    for (std::size_t k = 0; k < v.shown.size(); ++k) {
        out.push_back(label(v.shown[k]));
        if (k == v.gap_after) out.push_back(elided_cell);
    }
    return out;
}

}  // namespace

axis_view view_axis(std::size_t n, std::size_t limit) {
    axis_view v;
    if (n <= limit || limit < 2 * view_edge) {
        for (std::size_t i = 0; i < n; ++i) v.shown.push_back(i);
        return v;
    }
    for (std::size_t i = 0; i < view_edge; ++i) v.shown.push_back(i);
    v.gap_after = view_edge - 1;
    for (std::size_t i = n - view_edge; i < n; ++i) v.shown.push_back(i);
    return v;
}

table stage_view_table(const trace_run& r, stage s, std::size_t b, std::size_t h, const run_labels& given, int decimals,
                       std::size_t limit) {
    const run_labels l = told_apart(given);
    const stage_frame f = frame_of(s, l);
    const std::size_t n_rows = r.rows(s), n_cols = r.cols(s);
    const axis_view rv = view_axis(n_rows, limit), cv = view_axis(n_cols, limit);
    table t;
    t.title = f.title;
    t.axes = f.axes;
    t.corner = f.corner;
    t.shape = "[" + std::to_string(n_rows) + " × " + std::to_string(n_cols) + "]";
    t.row_labels = shown_labels(rv, [&](std::size_t i) { return (*f.row_labels)[i]; });
    t.col_labels = shown_labels(cv, [&](std::size_t j) {
        return f.columns == stage_frame::keys ? l.key_tokens[j] : "d" + std::to_string(j);
    });
    std::vector<double> row;
    for (std::size_t a = 0; a < rv.shown.size(); ++a) {
        read_row(r, s, b, h, rv.shown[a], row);
        std::vector<std::string> cells;
        for (std::size_t c = 0; c < cv.shown.size(); ++c) {
            cells.push_back(fixed(row[cv.shown[c]], decimals));
            if (c == cv.gap_after) cells.push_back(elided_cell);
        }
        t.cells.push_back(cells);
        if (a == rv.gap_after) t.cells.push_back(std::vector<std::string>(cells.size(), elided_cell));
    }
    return t;
}

std::string elision_note(const trace_run& r, stage s, std::size_t limit) {
    const axis_view rv = view_axis(r.rows(s), limit), cv = view_axis(r.cols(s), limit);
    if (!rv.elided() && !cv.elided()) return "";
    std::string what;
    if (rv.elided()) what = fmt::format("{} more rows", r.rows(s) - rv.shown.size());
    if (cv.elided()) what += fmt::format("{}{} more columns", what.empty() ? "" : " and ", r.cols(s) - cv.shown.size());
    return "  … " + what + " not shown: see all with --full, one stage with --stage, one query with --query\n";
}

int user_stage_decimals(const trace_run& r, stage s, std::size_t b, std::size_t h) {
    if (s != stage::q && s != stage::k && s != stage::v) return stage_info_of(s).decimals;
    std::vector<double> row;
    for (int d = 1; d < 4; ++d) {
        const double p = std::pow(10.0, d);
        bool exact = true;
        for (std::size_t i = 0; i < r.rows(s) && exact; ++i) {
            read_row(r, s, b, h, i, row);
            for (double x : row) exact = exact && std::fabs(x * p - std::round(x * p)) < 1e-9 * std::max(1.0, std::fabs(x * p));
        }
        if (exact) return d;
    }
    return 4;
}

std::string render_heatmap_view(const trace_run& r, stage s, std::size_t b, std::size_t h, const run_labels& given,
                                const heatmap_style& st, std::size_t width, std::size_t max_rows) {
    const run_labels l = told_apart(given);
    const std::size_t n_q = r.rows(s), n_k = r.cols(s);
    // How many key columns fit: render_heatmap gives each cell 1 + max(3, label width, value width) columns.
    std::size_t label_w = 3, row_w = 0;
    for (const auto& k : l.key_tokens) label_w = std::max(label_w, display_width(k));
    for (const auto& q : l.query_tokens) row_w = std::max(row_w, display_width(q));
    if (st.color) label_w = std::max<std::size_t>(label_w, 6);
    const std::size_t room = width > row_w + 2 ? width - row_w - 2 : 0;
    const std::size_t fit_cols = std::max<std::size_t>(1, room / (label_w + 1));
    const std::size_t col_block = n_k <= fit_cols ? 1 : (n_k + fit_cols - 1) / fit_cols;
    const std::size_t row_block = n_q <= max_rows ? 1 : (n_q + max_rows - 1) / max_rows;
    const std::size_t rows = (n_q + row_block - 1) / row_block, cols = n_k == 0 ? 0 : (n_k + col_block - 1) / col_block;
    const bool masked_stage = s == stage::scores_masked || s == stage::weights;
    const std::size_t first_query = r.one_query.value_or(0);

    heatmap_input in;
    in.title = std::string("Heatmap of the ") + stage_info_of(s).caption;  // words, not the hook name
    in.unit_range = s == stage::weights;
    matrix values = xt::zeros<double>({rows, cols});  // [rows, cols] block maxima
    bool_matrix attend = xt::zeros<bool>({rows, cols});  // [rows, cols] any cell of the block may attend
    std::vector<bool> seen(rows * cols, false);
    std::vector<double> row;
    for (std::size_t i = 0; i < n_q; ++i) {
        read_row(r, s, b, h, i, row);
        const std::size_t bi = i / row_block;
        for (std::size_t j = 0; j < n_k; ++j) {
            const bool visible = (!masked_stage || r.attends(b, first_query + i, j)) && std::isfinite(row[j]);
            if (!visible) continue;
            const std::size_t bj = j / col_block;
            if (!seen[bi * cols + bj] || row[j] > values(bi, bj)) values(bi, bj) = row[j];
            seen[bi * cols + bj] = true;
            attend(bi, bj) = true;
        }
    }
    for (std::size_t i = 0; i < rows; ++i) in.row_labels.push_back(l.query_tokens[first_query + i * row_block]);
    for (std::size_t j = 0; j < cols; ++j) in.col_labels.push_back(l.key_tokens[j * col_block]);
    in.values = &values;
    in.attend = &attend;
    in.width = width;
    if (row_block > 1 || col_block > 1)
        in.legend_note = fmt::format("downsampled to fit {} columns: {}", width, block_max_note(row_block, col_block));
    return render_heatmap(in, st);
}

}  // namespace attn::trace
