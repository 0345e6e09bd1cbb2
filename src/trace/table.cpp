// trace/table.cpp — see table.hpp.
#include "trace/table.hpp"

#include <algorithm>
#include <stdexcept>

#include "io/terminal_safe.hpp"
#include "trace/number_format.hpp"
#include "trace/text_width.hpp"

namespace attn::trace {

table make_table(const std::string& title, const std::string& axes, const std::string& corner,
                 const std::vector<std::string>& row_labels, const std::vector<std::string>& col_labels,
                 const matrix& values, int decimals) {
    if (row_labels.size() != values.shape(0) || col_labels.size() != values.shape(1))
        throw std::invalid_argument("table '" + title + "': " + std::to_string(row_labels.size()) + " row labels and " +
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

std::string render(const table& raw, const style& st) {
    // Titles and labels come from users' files: control characters are shown, never sent.
    table t = raw;
    for (std::string* s : {&t.title, &t.axes, &t.corner}) *s = io::terminal_safe(*s);
    for (auto& s : t.row_labels) s = io::terminal_safe(s);
    for (auto& s : t.col_labels) s = io::terminal_safe(s);
    for (auto& row : t.cells)
        for (auto& s : row) s = io::terminal_safe(s);
    std::size_t first = display_width(t.corner);
    for (const auto& r : t.row_labels) first = std::max(first, display_width(r));
    std::vector<std::size_t> widths(t.col_labels.size());
    for (std::size_t j = 0; j < widths.size(); ++j) {
        widths[j] = display_width(t.col_labels[j]);
        for (const auto& row : t.cells) widths[j] = std::max(widths[j], display_width(row[j]));
    }
    std::string out = st.heading(t.title) + "  " + t.shape;
    if (!t.axes.empty()) out += "  " + st.muted("(" + t.axes + ")");
    out += "\n";
    std::string header = "  " + pad_right(t.corner, first);
    for (std::size_t j = 0; j < widths.size(); ++j) header += "  " + st.label(pad_left(t.col_labels[j], widths[j]));
    out += header + "\n";
    for (std::size_t i = 0; i < t.cells.size(); ++i) {
        std::string line = "  " + st.label(pad_right(t.row_labels[i], first));
        for (std::size_t j = 0; j < widths.size(); ++j) line += "  " + pad_left(t.cells[i][j], widths[j]);
        out += line + "\n";
    }
    return out;
}

}  // namespace attn::trace
