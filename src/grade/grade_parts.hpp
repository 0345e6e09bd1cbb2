// grade/grade_parts.hpp — what every part grader shares (kinds/registry.cpp) and the
// numeric kind's grader (grade_numeric.cpp); internal to the grade floor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/value_tree.hpp"
#include "grade/exercise.hpp"
#include "grade/report.hpp"
#include "grade/variant.hpp"

namespace attn::grade {

// A part's answer inside the exercise's answer (a table of parts, or the value itself
// for a one-part exercise). Null when absent.
const io::value_node* part_answer(const exercise& x, const part_spec& p, const io::value_node* exercise_answer);

// True for a value that means "not answered yet": absent, null, or a string starting with TODO.
bool is_unanswered(const io::value_node* v);

// Every part grader starts here: the part's id, what it asks and its points, then
// "not answered" or where the answer is in the student's file.
part_result start_part(const part_spec& p, const std::string& what, const io::value_node* a);

std::vector<part_result> grade_numeric_parts(const exercise& x, const exercise_numbers& numbers,
                                             const io::value_node* exercise_answer);

}  // namespace attn::grade
