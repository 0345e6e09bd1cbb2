// grade/class_batch.hpp — `attn grade --class DIR`: every submission in a folder (one
// file or one folder per student), graded one at a time and handed to the caller
// before the next is read, so memory stays flat however large the class (10,000
// submissions: see README, Performance). What is kept is small: counts, the
// misconception histogram (overall and per exercise), the not-gradable list, and the
// copy finder's indexes (grade/copies.hpp: "matches the numbers of student X"). A
// submission that cannot be read is listed as not gradable with its reason and the batch
// goes on; nothing is executed.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "grade/grader.hpp"

namespace attn::grade {

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
    bool all_full = true;
    std::map<std::string, misconception> mistakes;
    std::vector<std::pair<std::string, std::string>> not_gradable;  // student, "reason: message"
    std::vector<std::pair<std::string, std::string>> copies;        // student, the copy note (grade/copies.hpp)
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

// Most frequent first (then by id, for a stable order).
std::vector<misconception> misconception_histogram(const class_result& c);

// student,<exercise ids…>,total,max,percent,status,reason,mistakes,variant,notes — RFC 4180
// quoting; text cells that a spreadsheet would run as a formula (=, +, -, @) get a leading '.
std::string gradebook_header(const std::vector<std::string>& exercise_ids);
std::string gradebook_row(const grade_report& r, const std::vector<std::string>& exercise_ids);
// mistake,name,parts,students,by_exercise ("04-cross-the:3 06-padded:1")
std::string histogram_csv(const class_result& c);

}  // namespace attn::grade
