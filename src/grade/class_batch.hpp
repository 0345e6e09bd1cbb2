// grade/class_batch.hpp — `attn grade --class DIR`: every submission in a folder
// (one file or one folder per student), a CSV gradebook with every student in it,
// and a histogram of the misconceptions found. A submission that cannot be read is
// listed as not gradable with its reason and the batch goes on; nothing is executed.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grade/grader.hpp"

namespace attn::grade {

struct class_result {
    std::vector<std::string> exercise_ids;  // the gradebook's columns
    std::vector<grade_report> reports;      // one per student, sorted by student id
};

// Throws only for teacher errors (no such folder, unknown exercise id, missing course
// secret); every problem of a student's submission ends in that student's report.
class_result grade_class(const std::string& dir, const exercise_set& set, const grade_options& options,
                         const read_limits& limits = {});

struct misconception {
    std::string id;
    std::string name;
    std::size_t parts = 0;     // how many wrong parts showed it
    std::size_t students = 0;  // how many students showed it at least once
};
// File names in a report made relative to dir (the class folder, a Gradescope submission).
void make_paths_relative(grade_report& r, const std::string& dir);

// Most frequent first (then by id, for a stable order).
std::vector<misconception> misconception_histogram(const class_result& c);

// student,<exercise ids…>,total,max,percent,status,reason,mistakes — RFC 4180 quoting;
// text cells that a spreadsheet would run as a formula (=, +, -, @) get a leading '.
std::string gradebook_csv(const class_result& c);
std::string histogram_csv(const class_result& c);
std::string class_summary_text(const class_result& c);
nlohmann::json class_json(const class_result& c);

}  // namespace attn::grade
