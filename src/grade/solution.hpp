// grade/solution.hpp — the worked solution of one exercise, on the numbers a request
// gets (the lesson's own, or the practice variant), as its kind solves it
// (kinds/*.cpp; the numeric kind's from the grader's own pipeline: for each part what the
// grader expects, and for the attention stages the passes that lead there on the rows
// the part asks). Shown in the lesson when a student asks for it (`s`) or after three
// wrong tries; never in a class's hand-out.
#pragma once

#include <string>

#include "grade/exercise.hpp"
#include "grade/kinds/kind.hpp"

namespace attn::grade {

inline std::string worked_solution(const exercise& x, const variant_request& request) { return x.kind->solve(x, request); }

}  // namespace attn::grade
