// cli/practice.hpp — answering a lesson's questions inside the lesson (`a` at the
// step viewer's prompt): pick a question, see its numbers (the lesson's own, or the
// practice variant, labelled), type each part on one line, and have it graded by the
// grader `attn exercise check` uses; a wrong try shows the grader's feedback and the
// exercise's hint, `s` (after a try: here, or one the progress file remembers) or a
// third wrong try shows the worked solution. A try is one
// submission of every part asked; only parts right on their own (✓) are kept, and a
// part right only given a wrong earlier part (↳) is asked again with it. Every graded
// try is saved to the progress file (lessons/progress.hpp). Terminal only: the step
// viewer calls it in cooked mode (line input, echo on).
#pragma once

#include <optional>
#include <string>

#include "io/value_tree.hpp"
#include "grade/exercise.hpp"
#include "lessons/lesson.hpp"
#include "trace/style.hpp"

namespace attn::cli {

// The whole dialogue, from the question list back to the lesson.
void practise_questions(const lessons::lesson& l, const trace::style& st);

// One typed line as the value the grader reads for a part of this exercise's kind
// (practice_input.cpp; the forms each kind accepts: io/typed_line.hpp).
// Returns nullopt and sets error for brackets that do not match.
std::optional<io::value_node> answer_from_line(const std::string& line, const grade::exercise& x, std::string& error);

}  // namespace attn::cli
