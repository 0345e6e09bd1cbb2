// grade/assignment.hpp — an assignment file: which exercises `attn grade` grades (for one
// student, a --class folder or a --gradescope run), how many points each is worth, how
// much feedback a student is shown, and (Gradescope) when. Format for teachers, every
// key with its meaning: lessons/README.md, "Assignments"; an example:
// examples/assignment.toml. Every exercise listed is graded; one the submission does not
// answer scores 0.
#pragma once

#include <string>
#include <vector>

#include "grade/exercise.hpp"
#include "grade/grader.hpp"

namespace attn::grade {

struct assignment {
    std::string path;
    std::string title;                      // optional, for the teacher's own use
    std::optional<feedback_level> feedback;  // every exercise's level, unless the exercise says
    std::string visibility;                 // Gradescope visibility of the tests; "" = the command line's
    std::string release_expected;           // "" (never), after_due_date or after_published
    // Gradescope's previous_submissions policy: the first N submissions get the levels
    // above; from submission N + 1 on every exercise is shown at `score` (points only),
    // so repeated tries cannot mine the feedback. Absent = every try alike.
    std::optional<int> detailed_tries;
    std::vector<std::string> exercise_ids;  // in the file's order
    std::map<std::string, exercise_override> per_exercise;
};

// Reads and checks an assignment file through io::read_input_file. Throws
// io::input_error with file:line:col for a syntax error, an unknown key, an unknown
// exercise id (named), a repeated exercise, or a value of the wrong kind.
assignment read_assignment(const std::string& path, const exercise_set& set);

// The assignment's exercises, points and feedback levels into the grading options
// (the command line's --feedback, given as `forced`, replaces every level).
void apply_assignment(const assignment& a, grade_options& g, std::optional<feedback_level> forced);

// The previous_submissions policy for a submission made after `previous` others: past
// the assignment's detailed_tries, every level becomes `score`. Returns the note the
// student reads ("" when the policy changes nothing).
std::string apply_tries(const assignment& a, std::size_t previous, grade_options& g);

}  // namespace attn::grade
