// trace/table.cpp — see table.hpp.
#include "trace/table.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/internal_error.hpp"
#include "io/terminal_safe.hpp"
#include "trace/number_format.hpp"
#include "trace/text_width.hpp"

namespace attn::trace {

table make_table(const std::string& title, const std::string& axes, const std::string& corner,
                 const std::vector<std::string>& row_labels, const std::vector<std::string>& col_labels,
                 const matrix& values, int decimals) {
    if (row_labels.size() != values.shape(0) || col_labels.size() != values.shape(1))
        throw internal_error("table '" + title + "': " + std::to_string(row_labels.size()) + " row labels and " +
                                    std::to_string(col_labels.size()) + " column labels for a [" +
                                    std::to_string(values.shape(0)) + " x " + std::to_string(values.shape(1)) +
                                    "] matrix");
    table t;
    t.title = title;
    t.axes = axes;
    t.corner = corner;
    t.row_labels = row_labels;
    t.col_labels = col_labels;
    t.shape = "[" + std::to_string(values.shape(0)) + " × " + std::to_string(values.shape(1)) + "]";
    t.cells.assign(values.shape(0), std::vector<std::string>(values.shape(1)));
    for (std::size_t i = 0; i < values.shape(0); ++i)
        for (std::size_t j = 0; j < values.shape(1); ++j) t.cells[i][j] = fixed(values(i, j), decimals);
    return t;
}

std::vector<std::string> dimension_labels(std::size_t n) {
    std::vector<std::string> labels(n);
    for (std::size_t i = 0; i < n; ++i) labels[i] = "d" + std::to_string(i);
    return labels;
}

std::vector<std::string> labels_or_index(const std::vector<std::string>& tokens, std::size_t n) {
    std::vector<std::string> labels(n);
    for (std::size_t i = 0; i < n; ++i) labels[i] = i < tokens.size() ? tokens[i] : std::to_string(i);
    return labels;
}

namespace {

// Column indices to print: all of them, or (wide tables, without --full) the
// first and last few around one "…" column, marked by index n_cols.
std::vector<std::size_t> shown_columns(std::size_t n_cols, bool full) {
    constexpr std::size_t most = 16, head = 6, tail = 3;
    std::vector<std::size_t> cols;
    if (full || n_cols <= most) {
        for (std::size_t j = 0; j < n_cols; ++j) cols.push_back(j);
        return cols;
    }
    for (std::size_t j = 0; j < head; ++j) cols.push_back(j);
    cols.push_back(n_cols);  // the "…" column
    for (std::size_t j = n_cols - tail; j < n_cols; ++j) cols.push_back(j);
    return cols;
}

// Rows to print, likewise (index n_rows marks the "…" row).
std::vector<std::size_t> shown_rows(std::size_t n_rows, bool full) {
    constexpr std::size_t most = 40, head = 10, tail = 5;
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < n_rows; ++i)
        if (full || n_rows <= most || i < head || i >= n_rows - tail) rows.push_back(i);
    if (!full && n_rows > most) rows.insert(rows.begin() + static_cast<long>(head), n_rows);
    return rows;
}

// Column blocks that fit the width, NumPy-style: each block repeats the row
// labels. `widths` are the printed columns' widths; `first` the labels' width.
std::vector<std::vector<std::size_t>> column_blocks(const std::vector<std::size_t>& widths, std::size_t first,
                                                    std::size_t width) {
    std::vector<std::vector<std::size_t>> blocks(1);
    std::size_t used = 2 + first;
    for (std::size_t k = 0; k < widths.size(); ++k) {
        if (!blocks.back().empty() && used + 2 + widths[k] > width) {
            blocks.emplace_back();
            used = 2 + first;
        }
        blocks.back().push_back(k);
        used += 2 + widths[k];
    }
    return blocks;
}

// Title, shape and axes on one line when they fit; else the axes on a line of
// their own, and when even the title and shape do not fit, the shape goes with
// the axes.
std::string title_lines(const table& t, const style& st) {
    const std::string head = st.heading(t.title) + "  " + t.shape;
    const std::string axes = t.axes.empty() ? "" : st.muted("(" + t.axes + ")");
    if (axes.empty() && display_width(head) <= st.width) return head + "\n";
    if (display_width(head) + 2 + display_width(axes) <= st.width) return head + "  " + axes + "\n";
    if (display_width(head) <= st.width) return head + "\n" + fit_line("  " + axes, st.width) + "\n";
    const std::string rest = axes.empty() ? t.shape : t.shape + "  " + axes;
    return fit_line(st.heading(t.title), st.width) + "\n" + fit_line("  " + rest, st.width) + "\n";
}

}  // namespace

std::string render(const table& raw, const style& st) {
    // Titles and labels come from users' files: control characters are shown, never sent.
    table t = raw;
    for (std::string* s : {&t.title, &t.axes, &t.corner}) *s = io::terminal_safe(*s);
    for (auto& s : t.row_labels) s = io::terminal_safe(s);
    for (auto& s : t.col_labels) s = io::terminal_safe(s);
    for (auto& row : t.cells)
        for (auto& s : row) s = io::terminal_safe(s);
    const std::vector<std::size_t> cols = shown_columns(t.col_labels.size(), st.full);  // printed columns
    const std::vector<std::size_t> rows = shown_rows(t.cells.size(), st.full);          // printed rows
    const auto col_label = [&](std::size_t j) { return j == t.col_labels.size() ? std::string("…") : t.col_labels[j]; };
    const auto cell = [&](std::size_t i, std::size_t j) {
        return i == t.cells.size() || j == t.col_labels.size() ? std::string("…") : t.cells[i][j];
    };
    const auto row_label = [&](std::size_t i) { return i == t.cells.size() ? std::string("…") : t.row_labels[i]; };

    std::size_t first = display_width(t.corner);
    for (std::size_t i : rows) first = std::max(first, display_width(row_label(i)));
    std::vector<std::size_t> widths(cols.size());  // [printed columns]
    for (std::size_t k = 0; k < cols.size(); ++k) {
        widths[k] = display_width(col_label(cols[k]));
        for (std::size_t i : rows) widths[k] = std::max(widths[k], display_width(cell(i, cols[k])));
    }
    std::string out = title_lines(t, st);
    const auto blocks = column_blocks(widths, first, st.width);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        if (b) out += "\n";
        std::string header = "  " + pad_right(t.corner, first);
        for (std::size_t k : blocks[b]) header += "  " + st.label(pad_left(col_label(cols[k]), widths[k]));
        out += header + "\n";
        for (std::size_t i : rows) {
            std::string line = "  " + st.label(pad_right(row_label(i), first));
            for (std::size_t k : blocks[b]) line += "  " + pad_left(cell(i, cols[k]), widths[k]);
            out += line + "\n";
        }
    }
    return out;
}

}  // namespace attn::trace
