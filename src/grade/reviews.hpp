// grade/reviews.hpp — open exercises ("for the teacher"): the review sheet a class run
// exports, and the teacher's points merged back (`attn grade --reviews FILE`).
//
// An open part earns 0 points until it is reviewed. The sheet is CSV, one row per
// student × open part, columns
//   student,exercise,part,max,points,comment,answer,rubric
// (cells passed through io::terminal_safe and io::spreadsheet_safe: an answer such as
// "=HYPERLINK(…)" stays text). The teacher fills `points` (0 … max, decimals allowed)
// and optionally `comment`; a row whose points are empty is not reviewed yet. Columns
// are found by their header name, so a spreadsheet may reorder them; extra columns are
// ignored. A review counts only while the student's answer is the one reviewed: a
// changed answer is back to "waiting for review", with a note.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/error.hpp"

#include "io/value_tree.hpp"
#include "grade/exercise.hpp"
#include "grade/report.hpp"

namespace attn::grade {

struct review {
    double points = 0.0;      // as written, out of the lesson's points for the part
    double fraction = 0.0;    // points / the part's points in the lesson (an assignment may rescale the part)
    std::string comment;
    std::string answer;       // the answer as the sheet showed it (io::csv_text)
    lessons::source_pos where;  // the row in the sheet
};

class review_table {
public:
    // Reads a filled-in sheet; every row must name an open part of `set`, with points
    // empty or within 0 … its max, and no (student, exercise, part) twice.
    static review_table read(const std::string& path, const exercise_set& set);
    static review_table parse(const std::string& text, const std::string& display_path, const exercise_set& set);

    // The review of one student's part (student id normalised), or null.
    const review* find(const std::string& student, const std::string& exercise, const std::string& part) const;

private:
    std::map<std::tuple<std::string, std::string, std::string>, review> rows_;
};

// The sheet: its header, and one row per open part of a report (answered or not).
std::string review_sheet_header();
std::string review_sheet_rows(const grade_report& r, const exercise_set& set);

// Grades one answered open part (the open kind's part grader): 0 points and status
// `review` until the teacher's review of this very answer gives its points.
void grade_open_part(const exercise& x, const part_spec& p, const io::value_node& a, const kind_grading& g,
                     part_result& r);

}  // namespace attn::grade
