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

// Gradescope's results.json: score, max_score, output, tests[] with name, number,
// score, max_score, status ("passed"/"failed"), output, visibility. Each test shows its
// exercise's feedback level; an exercise's own visibility (assignment file) overrides
// `visibility`. With release_expected (after_due_date, after_published), an exercise
// graded below full feedback gets one more test, worth no points, carrying the full
// feedback (expected values) at that visibility.
nlohmann::json gradescope_results(const grade_report& r, const std::string& visibility = "visible",
                                  const std::string& release_expected = "");

// The submitters' ids from Gradescope's submission_metadata.json, one per user (a group
// submission has several): each user's sid, else email, else id — an empty or blank
// field falls through to the next; none when the file is missing or says nothing usable.
std::vector<std::string> gradescope_students(const std::string& metadata_path);
// How many submissions the student made before this one (the metadata's
// previous_submissions; 0 when it is absent or unreadable).
std::size_t gradescope_previous_submissions(const std::string& metadata_path);

// JUnit XML: one <testsuite> per student, one <testcase> per part, <failure> for lost points.
std::string junit_xml(const std::vector<grade_report>& reports);

// One student's <testsuite> (for a class written suite by suite); adds to the counts.
std::string junit_suite(const grade_report& r, std::size_t* tests = nullptr, std::size_t* failures = nullptr);

// Text from a submission made safe for a terminal: C0 controls (newline and tab too),
// DEL and C1 controls become visible escapes (\x0a, \u009b), so a `student` with a
// newline cannot print a fake "Total" line. Grade-local until attn::io::terminal_safe lands.
std::string terminal_visible(const std::string& s);

// XML text escaping (& < > " ') for attribute and element content.
std::string xml_escape(const std::string& s);

}  // namespace attn::grade
