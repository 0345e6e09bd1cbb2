// grade/solution.hpp — the worked solution of one exercise, on the numbers a request
// gets (the lesson's own, or the practice variant): for each part what the grader
// expects, and for the attention stages the passes that lead there (raw → scaled →
// masked → weights → output) on the rows the part asks. Shown in the lesson when a
// student asks for it (`s`) or after three wrong tries; never in a class's hand-out.
#pragma once

#include <string>

#include "grade/exercise.hpp"
#include "grade/variant.hpp"

namespace attn::grade {

std::string worked_solution(const exercise& x, const variant_request& request);
// The numeric kind's solver (grade/kinds/numeric.cpp): the passes on the asked rows.
std::string numeric_solution(const exercise& x, const variant_request& request);

}  // namespace attn::grade
