// grade/answer_matrix.hpp — a numeric answer as a matrix (io/value_matrix), under the
// grader's names.
#pragma once

#include "grade/answer_value.hpp"
#include "io/value_matrix.hpp"

namespace attn::grade {

using read_result = io::matrix_read;
using io::conform;
using io::read_matrix;

}  // namespace attn::grade
