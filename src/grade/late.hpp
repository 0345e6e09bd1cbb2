// grade/late.hpp — an assignment's late policy ([late] in the assignment file, read by
// grade/assignment.cpp) and its application to a report: a due date, a deduction per
// started day or hour late (a percent of the points possible, as Canvas counts it), a
// floor below which a deduction never takes a score (a score already below it stays),
// and per-student extensions (a CSV student,due). Submission times come from a CSV
// student,submitted_at (`attn grade --submitted-at`) or Gradescope's metadata
// (created_at). Every time carries its time zone; a bad one is refused at file:line:col.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/error.hpp"

namespace attn::grade {

struct grade_report;

struct time_stamp {
    std::int64_t us = 0;       // microseconds since 1970-01-01T00:00:00Z
    std::string text;          // as written
    source_pos where;           // where it was written (line 0: no file)
};

struct late_policy {
    time_stamp due;
    bool per_hour = false;     // the deduction's period: an hour, else a day
    double deduction = 0.0;    // percent of the points possible per started period
    double floor = 0.0;        // percent of the points possible: a deduction stops there
    std::string extensions_file;
    std::map<std::string, time_stamp> extensions;  // normalised student id → their own due date
};

// The policy with the times it applies to (grade_options::late).
struct late_work {
    late_policy policy;
    std::string times_file;                   // where the times came from (for notes)
    std::map<std::string, time_stamp> times;  // normalised student id → submitted at
};

// "2026-03-01T23:59:00Z", "2026-03-01 23:59+01:00": seconds and a fraction optional, the
// zone (Z or ±HH:MM) required. nullopt with *why set when the text is not such a time.
std::optional<std::int64_t> parse_time(const std::string& text, std::string* why);

// A CSV whose header names `student` and `column` (a time each), by normalised id.
// Throws attn::error at file:line:col: not UTF-8, no such column, a bad time, a student twice.
std::map<std::string, time_stamp> read_times_csv(const std::string& path, const std::string& column, const std::string& what);

// Lowers r.score by the policy (gradable reports only) and records what it did in r.late;
// a student with no time is noted (teacher-only) and not counted late.
void apply_late(grade_report& r, const late_work& w);

}  // namespace attn::grade
