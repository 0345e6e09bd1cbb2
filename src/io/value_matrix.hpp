// io/value_matrix.hpp — a value of a document (io/value_tree) read as a matrix of
// numbers: a number, a row, or rows (the strings "nan", "inf", "-inf", "−inf", "∞", "-∞"
// read as those numbers; null, attn's JSON export of a blocked cell, as −∞), with the
// value's file:line:col in every complaint.
#pragma once

#include <optional>
#include <string>

#include "core/types.hpp"
#include "io/value_tree.hpp"

namespace attn::io {

struct matrix_read {
    std::optional<matrix> m;  // [rows, cols]
    std::string error;        // with file:line:col when m is empty
};

matrix_read read_matrix(const value_node& v);

// A row or a column given flat, or as the other orientation of a vector, is taken in
// the expected shape; anything else is returned unchanged (and fails a shape check).
matrix conform(const matrix& m, const matrix& expected);

}  // namespace attn::io
