// grade/class_batch.hpp — `attn grade --class DIR`: every submission in a folder (one
// file or one folder per student), graded one at a time and handed to the caller
// before the next is read, so memory stays flat however large the class (10,000
// submissions: bench/results/). What is kept is small: counts, the
// misconception histogram (overall and per exercise), the not-gradable list, and the
// copy finder's indexes (below: "matches the numbers of student X"). A
// submission that cannot be read is listed as not gradable with its reason and the batch
// goes on; nothing is executed.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grade/grader.hpp"

namespace attn::grade {

// Copies (grade/copies.cpp), found in a class of any size, in time about linear in it.
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
struct copy_match {
    std::string source;                   // whose numbers (or submission) the parts match
    bool from_submission = false;         // matched what source handed in, not source's right answers
    std::size_t parts = 0;                // parts that match source
    std::size_t answered = 0;             // numeric parts of per-student exercises answered (the share's denominator)
    std::vector<std::string> exercises;   // where, in the assignment's order
};

class copy_finder {
public:
    // The exercises of options.exercise_ids; students: the class's normalised ids, in the
    // order check() will be called (kept by reference). Plans the index; its entries come
    // from index() (each student's numbers, as the variant check draws them), then seal().
    copy_finder(const exercise_set& set, const grade_options& options, const std::vector<std::string>& students);
    ~copy_finder();
    copy_finder(const copy_finder&) = delete;

    // Student `who`'s right answers of x, on the numbers they were handed (any thread: one
    // slot per student); x's entries join the index at the next seal() or index() of
    // another exercise, in student order, so the index is the same on any thread count.
    void index(const exercise& x, std::size_t who, const exercise_numbers& numbers);
    // Whether index() wants x; after the last exercise: seal().
    bool indexes(const exercise& x) const;
    void seal();
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

struct misconception {
    std::string id;
    std::string name;
    std::size_t parts = 0;     // how many wrong parts showed it
    std::size_t students = 0;  // how many students showed it at least once
    std::map<std::string, std::size_t> by_exercise;  // exercise id → wrong parts showing it
};

// What stays after the reports were handed out.
struct class_result {
    std::vector<std::string> exercise_ids;  // the gradebook's columns
    std::size_t students = 0, graded = 0;
    double score_sum = 0.0, max = 0.0;
    std::size_t late = 0;      // submissions the late policy found late
    double late_points = 0.0;  // what it deducted from them in all
    bool all_full = true;
    std::vector<misconception> histogram;  // most frequent first (then by id, for a stable order)
    std::vector<std::pair<std::string, std::string>> not_gradable;  // student, "reason: message"
    std::vector<std::pair<std::string, std::string>> copies;        // student, the copy note (copy_finder::flag)
    std::vector<std::pair<std::string, std::string>> several_files; // student, which of their files counted
};

using report_sink = std::function<void(const grade_report&)>;

// Grades dir, calling each(report) for every student in id order, one report alive at a
// time. Throws only for teacher errors (no such folder, unknown exercise id, missing
// course secret); every problem of a student's submission ends in that student's report.
class_result grade_class(const std::string& dir, const exercise_set& set, const grade_options& options,
                         const read_limits& limits, const report_sink& each);

// File names in a report made relative to dir (the class folder, a Gradescope submission).
void make_paths_relative(grade_report& r, const std::string& dir);

// student,<exercise ids…>,total,max,percent,status,reason,mistakes,variant,notes — RFC 4180
// quoting; text cells that a spreadsheet would run as a formula (=, +, -, @) get a leading '.
// With a late policy (late): then before_late,hours_late,late_deduction (total is after it).
std::string gradebook_header(const std::vector<std::string>& exercise_ids, bool late = false);
std::string gradebook_row(const grade_report& r, const std::vector<std::string>& exercise_ids, bool late = false);
// mistake,name,parts,students,by_exercise ("04-cross-the:3 06-padded:1")
std::string histogram_csv(const class_result& c);

}  // namespace attn::grade
