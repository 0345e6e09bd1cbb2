// grade/grader.hpp — grading one submission against the exercises.
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
#include "grade/report.hpp"
#include "grade/submission.hpp"
#include "grade/variant.hpp"

namespace attn::grade {

class review_table;

// What an assignment file says about one of its exercises (grade/assignment.hpp).
struct exercise_override {
    std::optional<double> points;                 // replaces the lesson's; parts scaled alike
    std::optional<feedback_level> feedback;       // this exercise's level
    std::string visibility;                       // Gradescope visibility of its tests; "" = the run's
};

struct grade_options {
    std::vector<std::string> exercise_ids;  // the assignment; empty = the exercises the submission answers
    std::string student;                    // overrides the file's `student`
    std::string secret;                     // course secret for per-student numbers
    bool lesson_numbers = false;            // grade everyone on the lesson's own numbers
    bool practice_ok = true;                // without a secret: the practice variant (false: --class, --gradescope)
    std::shared_ptr<const review_table> reviews;  // the teacher's points for open parts (--reviews), or none
    feedback_level feedback = feedback_level::full;       // every exercise's level unless per_exercise says
    std::map<std::string, exercise_override> per_exercise;  // from the assignment file
    std::shared_ptr<const variant_memo> variants;  // a class's draw counts (grade/variant.hpp), or none

    variant_request request(const std::string& for_student) const;  // whose numbers, as these options draw them
};

// The exercises as the options weigh them: an assignment's points replace the lesson's
// (parts scaled alike); what --reviews checks a review sheet's points against.
exercise_set weighed_set(const exercise_set& set, const grade_options& options);

// Throws variant_error when per-student numbers are needed and no secret is known,
// and std::invalid_argument for an unknown exercise id in exercise_ids.
grade_report grade_submission(const submission& sub, const exercise_set& set, const grade_options& options);

// A group submission (Gradescope lists every member): graded on each member's numbers;
// the best grade counts for the whole group, and a note says whose numbers it was.
grade_report grade_group(const submission& sub, const exercise_set& set, grade_options options,
                         const std::vector<std::string>& members);

// The report of a submission that could not be read (every assigned exercise at 0).
grade_report not_gradable(const std::string& student, const std::string& path, const error& why,
                          const exercise_set& set, const std::vector<std::string>& exercise_ids,
                          const grade_options& options = {});

// One exercise (used by grade_submission; exposed for tests). answer may be null.
exercise_result grade_exercise(const exercise& x, const io::value_node* answer, const variant_request& request,
                               std::vector<std::string>& notes, std::vector<std::string>& flags,
                               const review_table* reviews = nullptr);

}  // namespace attn::grade
