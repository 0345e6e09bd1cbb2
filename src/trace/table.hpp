// trace/table.hpp — labeled tables. Rows are queries (or tokens), columns are
// keys (or d0..d3 for vectors); the title carries the shape and says which is which.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"
#include "trace/style.hpp"

namespace attn::trace {

struct table {
    std::string title;                    // "Cross-attention weights softmax(S)"
    std::string axes;                     // "rows: decoder queries · columns: encoder keys"
    std::string corner;                   // "Q_dec \\ K_enc"
    std::vector<std::string> row_labels;  // [n_rows]
    std::vector<std::string> col_labels;  // [n_cols]
    std::vector<std::vector<std::string>> cells;  // [n_rows][n_cols], already formatted
    std::string shape;                    // "[5 × 5]"; filled by make_table
};

// Formats every cell with fixed(decimals); masked_blocked (optional, same shape)
// prints blocked cells as "-inf" whatever their value.
table make_table(const std::string& title, const std::string& axes, const std::string& corner,
                 const std::vector<std::string>& row_labels, const std::vector<std::string>& col_labels,
                 const matrix& values, int decimals);

// "d0", "d1", ... for the columns of a vector-valued stage.
std::vector<std::string> dimension_labels(std::size_t n);
// n row or column labels: the tokens given, then the index of each one past them.
std::vector<std::string> labels_or_index(const std::vector<std::string>& tokens, std::size_t n);

// Renders the title line, the header and the rows, each line ending in '\n'.
// Columns are right-aligned to the widest of label and values, Hangul included.
// A table wider than st.width is split into column blocks, each repeating the
// row labels; more than 16 columns or 40 rows are shown by their ends around
// "…" unless st.full.
std::string render(const table& t, const style& st);

}  // namespace attn::trace
