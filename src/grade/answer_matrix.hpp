// grade/answer_matrix.hpp — a numeric answer as a matrix: a number, a row, or rows
// of numbers (the strings "nan", "inf", "-inf" read as those numbers), with the
// answer's file:line:col in every complaint.
#pragma once

#include <optional>
#include <string>

#include "core/types.hpp"
#include "grade/answer_value.hpp"

namespace attn::grade {

struct read_result {
    std::optional<matrix> m;  // [rows, cols]
    std::string error;        // with file:line:col when m is empty
};

read_result read_matrix(const answer_value& v);

// A row or a column given flat, or as the other orientation of a vector, is taken in
// the expected shape; anything else is returned unchanged (and fails the shape check).
matrix conform(const matrix& m, const matrix& expected);

}  // namespace attn::grade
