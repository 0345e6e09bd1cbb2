// grade/copies.hpp — copies found in a class of any size, in time about linear in it.
//
// A numeric part of a per-student exercise is evidence of copying when it is wrong for
// the student's own numbers, names no catalogued mistake and follows from none (an honest
// mistake is never a copy), is no placeholder nor another row of their own numbers, is
// not the lesson's own numbers, and is right — within the grading tolerance loosened to
// 2-decimal rounding — for a classmate's numbers (an index over every student's expected
// values) or equals a classmate's submitted numbers (an index over the submissions graded
// so far). Both are core/near_index's: noise below the tolerance still matches.
//
// What is reported goes to the teacher only (gradebook notes, the class summary):
// the source student and the share of the student's numeric parts that match it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grade/grader.hpp"

namespace attn::grade {

struct copy_match {
    std::string source;                   // whose numbers (or submission) the parts match
    bool from_submission = false;         // matched what source handed in, not source's right answers
    std::size_t parts = 0;                // parts that match source
    std::size_t answered = 0;             // numeric parts of per-student exercises answered (the share's denominator)
    std::vector<std::string> exercises;   // where, in the assignment's order
};

class copy_finder {
public:
    // students: the class's normalised ids, in the order check() will be called (kept by reference).
    copy_finder(const exercise_set& set, const std::vector<std::string>& exercise_ids, const grade_options& options,
                const std::vector<std::string>& students);
    ~copy_finder();
    copy_finder(const copy_finder&) = delete;
    copy_finder& operator=(const copy_finder&) = delete;

    // Student number `who` (an index into students): compared with every classmate's
    // numbers and with the submissions checked before; then its own submitted numbers
    // are remembered for those after. Two matched parts with eight informative numbers
    // (or one with twelve; submissions alike: two parts) make a copy.
    std::optional<copy_match> check(std::size_t who, const grade_report& r, const submission& sub);

    // "matches the numbers of student ana: 6 of 6 numeric parts (03-causal-cat, 04-cross-the)"
    static std::string flag(const copy_match& m);

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace attn::grade
