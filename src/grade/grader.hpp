// grade/grader.hpp — grading one submission against the exercises, with the options an
// assignment file gives (grade/assignment.cpp reads it).
//
// Per part: shapes are checked before values; numbers with NumPy's rule (tolerance
// echoed in the feedback); partial credit per entry; a later part counts as right
// when it follows from the student's own earlier wrong answer; a wrong answer is
// compared with the catalogue of mistakes (mistakes.hpp) and the match is named.
#pragma once

#include <memory>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "grade/exercise.hpp"
#include "grade/late.hpp"
#include "grade/report.hpp"
#include "grade/submission.hpp"
#include "grade/variant.hpp"

namespace attn::grade {

class review_table;

// What an assignment file says about one of its exercises.
struct exercise_override {
    std::optional<double> points;                 // replaces the lesson's; parts scaled alike
    std::optional<feedback_level> feedback;       // this exercise's level
    std::string visibility;                       // Gradescope visibility of its tests; "" = the run's
};

// Whose numbers (the variant_request: `student` overrides the file's `student`; `memo`,
// a class's draw counts) and what is graded, at which level.
struct grade_options : variant_request {
    std::vector<std::string> exercise_ids;  // the assignment; empty = the exercises the submission answers
    std::shared_ptr<const review_table> reviews;  // the teacher's points for open parts (--reviews), or none
    feedback_level feedback = feedback_level::full;       // every exercise's level unless per_exercise says
    std::map<std::string, exercise_override> per_exercise;  // from the assignment file
    std::shared_ptr<const late_work> late;  // the assignment's late policy with the submission times, or none
    bool small_variant_space_ok = false;    // --class: grade an exercise whose variants > 1% of the class share (variant_space.hpp)

    variant_request request(const std::string& for_student) const;  // whose numbers, as these options draw them
};

// An assignment file: which exercises `attn grade` grades (for one student, a --class
// folder or a --gradescope run), how many points each is worth, how much feedback a
// student is shown, and (Gradescope) when (grade/assignment.cpp). Format for teachers,
// every key with its meaning: lessons/README.md, "Assignments"; an example:
// examples/assignment.toml. Every exercise listed is graded; one the submission does not
// answer scores 0.
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
    std::optional<late_policy> late;        // [late]: due date, deduction, floor, extensions
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

// The exercises as the options weigh them: an assignment's points replace the lesson's
// (parts scaled alike); what --reviews checks a review sheet's points against.
exercise_set weighed_set(const exercise_set& set, const grade_options& options);

// Throws variant_error when per-student numbers are needed and no secret is known,
// and std::invalid_argument for an unknown exercise id in exercise_ids.
grade_report grade_submission(const submission& sub, const exercise_set& set, const grade_options& options);

// Of several reports for one student (a group's members, several files): gradable first,
// then more points; on a tie the earlier one stays (better_report is false).
bool better_report(const grade_report& a, const grade_report& b);

// A group submission (Gradescope lists every member): graded on each member's numbers;
// the best grade counts for the whole group, and a note says whose numbers it was.
grade_report grade_group(const submission& sub, const exercise_set& set, grade_options options,
                         const std::vector<std::string>& members);

// The report of a submission that could not be read (every assigned exercise at 0).
grade_report not_gradable(const std::string& student, const std::string& path, const error& why,
                          const exercise_set& set, const grade_options& options);

// One exercise (used by grade_submission; exposed for tests). answer may be null.
exercise_result grade_exercise(const exercise& x, const io::value_node* answer, const kind_grading& g);

// ── what the kinds' part graders share (kinds/registry.cpp) and the numeric kind's
// grader (grade_numeric.cpp) ──

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
