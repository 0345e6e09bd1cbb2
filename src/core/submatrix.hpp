// core/submatrix.hpp — parts of a matrix picked by index: the entries at chosen rows
// and columns (the grader cuts a stage to the rows and columns a part asks), and the
// column of a row's largest entry (the key a query attends to most).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/types.hpp"

namespace attn {

// m's entries at rows × cols, in the order given (an empty list: every row, or every
// column); nullopt when an index is outside m.
std::optional<matrix> submatrix(const matrix& m, const std::vector<std::size_t>& rows,
                                const std::vector<std::size_t>& cols);

// The indices a list picks, as submatrix reads it: `picked`, or every index below n
// when it is empty (the rows or columns a part asks for).
std::vector<std::size_t> all_or(const std::vector<std::size_t>& picked, std::size_t n);

// The column of row i's largest entry: the first one within `slack` of it.
std::size_t row_argmax(const matrix& m, std::size_t i, double slack = 0.0);

}  // namespace attn
