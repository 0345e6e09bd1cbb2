// grade/report_format.hpp — one grade report (or a class of them) as text, JSON,
// Gradescope results.json or JUnit XML. Pure functions: the CLI writes the files.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grade/report.hpp"

namespace attn::grade {

// The human report: one block per exercise, one line per part, feedback indented.
std::string report_text(const grade_report& r);

nlohmann::json report_json(const grade_report& r);

// Gradescope's visibilities of one run: `tests` is the default of every test (the
// assignment's, else visible); an exercise's own visibility (assignment file)
// overrides it; `command_line` (--visibility) overrides both, so --visibility hidden
// hides every test, released ones included. release_expected
// (after_due_date, after_published): an exercise graded below full feedback gets one
// more test, worth no points, with the full feedback (expected values), released then.
struct gradescope_visibility {
    std::string tests = "visible";
    std::string command_line;      // "" = not given
    std::string release_expected;  // "" = never
};

// Gradescope's results.json: score, max_score, output, tests[] with name, number,
// score, max_score, status ("passed"/"failed"), output, visibility. Each test shows its
// exercise's feedback level. By Gradescope's rules a test at after_due_date or
// after_published hides the student's total until then (hidden tests carry no points
// and do not); the output then says when the total is shown.
nlohmann::json gradescope_results(const grade_report& r, const gradescope_visibility& v = {});

// Gradescope's submission_metadata.json: the submitters' ids, one per user (a group
// submission has several): each user's sid, else email, else id — an empty or blank
// field falls through to the next; and how many submissions the student made before
// this one (previous_submissions). None and 0 when the file is missing or unusable.
struct gradescope_metadata {
    std::vector<std::string> students;
    std::size_t previous_submissions = 0;
};
gradescope_metadata read_gradescope_metadata(const std::string& path);

// JUnit XML (grade/report_junit.cpp): one <testsuite> per student, one <testcase> per
// part, <failure> for lost points. junit_xml is a whole document; a class streams
// junit_open() (no counts: unknown when it starts), junit_suite per student, junit_close().
std::string junit_xml(const grade_report& r);
std::string junit_open(const std::string& attributes = "");  // the counts: ` tests="N" failures="N" errors="N"`
std::string junit_close();
// One student's <testsuite>; adds to the counts.
std::string junit_suite(const grade_report& r, std::size_t* tests = nullptr, std::size_t* failures = nullptr);

// Shared by the writers (report_json.cpp): a part's feedback for Gradescope and JUnit
// at its exercise's level (full: always); a score rounded to 1e-6, never -0; the line
// naming the exercises graded when no assignment named them.
std::string part_output(const exercise_result& x, const part_result& p, bool full = false);
double json_score(double x);
std::string answered_only_line(const grade_report& r);

// A class (grade/class_batch.hpp): the summary a teacher reads (counts, the
// misconception histogram, copies, students with several files, the not gradable), and
// attn's class JSON, streamed: class_json_open(), class_json_student per student (the
// first without a comma), class_json_close with the exercises and the histogram.
struct class_result;
std::string class_summary_text(const class_result& c);
std::string class_json_open();
std::string class_json_student(const grade_report& r, bool first);
std::string class_json_close(const class_result& c);

}  // namespace attn::grade
