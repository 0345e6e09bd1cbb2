// grade/report.hpp — what grading found, before it is printed in any format
// (text, JSON, Gradescope results.json, JUnit XML, CSV gradebook).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lessons/lesson.hpp"

namespace attn::grade {

// The order indexes status_name and report_text's marks.
enum class part_status {
    correct,     // within tolerance / the expected shape, choice or phrase
    carried,     // right given the student's own earlier (wrong) answer
    partial,     // some entries within tolerance
    wrong,
    unanswered,  // missing, or still the template's TODO
    invalid,     // not readable as the kind of answer asked (a string for a matrix ...)
    review,      // an open part waiting for the teacher's review (0 points until then)
};
const char* status_name(part_status s);

// How much of the grading a student is shown (`attn grade --feedback`, an assignment's
// `feedback`). full: everything, expected values included; mistakes: the mistake's name
// and which entries are wrong, never an expected value (number, shape, chosen answer);
// score: the points only. The report writers apply it (report_text, report_json).
enum class feedback_level { full, mistakes, score };
const char* feedback_level_name(feedback_level l);
std::optional<feedback_level> feedback_level_from(const std::string& word);  // nullopt: not a level

// A part's feedback, built once: its sentences in order, each marked with the levels
// that show it. Most show at both `full` and `mistakes`; a sentence naming an expected
// value (a number, the asked shape, the teacher's note on a choice) is `full` only, and
// its redacted form `mistakes` only. A level is a filter over the one list (`score`
// shows none of it: shown_feedback).
class feedback_text {
public:
    struct piece {
        std::string text;
        bool at_full = true, at_mistakes = true;
    };
    std::vector<piece> pieces;

    feedback_text& operator=(std::string s) {
        pieces.clear();
        return *this += std::move(s);
    }
    feedback_text& operator+=(std::string s) {
        pieces.push_back({std::move(s), true, true});
        return *this;
    }
    void full_only(std::string s) { pieces.push_back({std::move(s), true, false}); }
    void mistakes_only(std::string s) { pieces.push_back({std::move(s), false, true}); }
    std::string at(feedback_level level) const;
    std::string full() const { return at(feedback_level::full); }
    bool empty() const;
};

struct part_result {
    std::string id;
    std::string what;            // "weights", "shape", "choice" ...
    double score = 0.0, max = 0.0;
    part_status status = part_status::unanswered;
    feedback_text feedback;      // sentences for the student, each at the levels that show it
    std::string mistake;         // catalogue or declared mistake id, "" when none was recognised
    std::string mistake_name;    // "no scaling"
    lessons::source_pos where;   // the student's answer in their file, when there is one
    std::string answer_text;     // open parts: the student's text, for the review sheet
    std::string review_comment;  // open parts: the teacher's comment, once reviewed
    std::string review_note;     // open parts: why a review in the sheet was not applied
    bool other_numbers = false;        // right given an earlier part that is not an attempt at these numbers
    bool placeholder = false;          // a constant, uniform weights or the mean of V: no computation
    bool own_rows = false;             // other rows of the student's own numbers (or carried from them): not a copy
    bool explained = false;            // a named mistake, or carried from one: an honest chain, never a copy
    bool mistake_by_property = false;  // named from a property of the answer (rows not summing to 1), not recomputed
};

struct exercise_result {
    std::string id;
    std::string kind;
    std::string title;           // title or the prompt's first line
    int lesson = 0;
    double score = 0.0, max = 0.0;
    bool answered = false;
    std::vector<part_result> parts;
    // The numbers this student was graded on (regrading recomputes them from these).
    bool personal = false;       // drawn for this student from the course secret
    bool practice = false;       // the public practice variant (no secret given)
    std::string variant;         // the variant code students see ("K7QX2M", "practice"); never the seed
    std::string parameters;      // "q, k, v: halves in [-2, 2]" or "the lesson's own numbers"
    feedback_level feedback = feedback_level::full;  // what the student is shown of it
    std::string visibility;      // Gradescope visibility of its tests; "" = the run's
};

// A part's feedback as shown at its exercise's level ("" at score level).
std::string shown_feedback(const exercise_result& x, const part_result& p);
// Whether the mistake's name is shown (mistakes and full levels).
bool shows_mistakes(const exercise_result& x);

struct grade_report {
    std::string student;
    std::vector<std::string> files;
    bool gradable = true;
    std::string reason_word;     // not gradable: empty, too-large, not-utf8, syntax, layout, duplicate, unreadable, no-answers
    std::string reason;          // not gradable: the full message (file:line:col)
    std::vector<exercise_result> exercises;
    double score = 0.0, max = 0.0;
    std::vector<std::string> notes;  // read but ignored (unknown exercise ids, extra keys ...)
    std::string claimed_student;     // the file's `student` when it names someone else (never obeyed)
    std::vector<std::string> flags;  // for the teacher: "student key says 'bob'", "matches the numbers of student carol"
    bool answered_only = false;      // no assignment named the exercises: only the answered ones were graded

    bool full_marks() const;
    // Every exercise at the full level: the teacher's own view, where flags are shown.
    // At mistakes or score (what students read) flags never are.
    bool teacher_view() const;
    // Every recognised mistake, in order; shown_only: those the feedback levels let the student see.
    std::vector<std::string> mistake_ids(bool shown_only = false) const;
};

// Every note, flag and sheet cell the grader writes is capped (io::capped_text says
// what was cut).
constexpr std::size_t max_note_bytes = 400;    // one note or flag
constexpr std::size_t max_notes = 40;          // per report, then "… and N more notes"
constexpr std::size_t max_cell_bytes = 32000;  // a spreadsheet cell (Excel holds 32,767 characters)

// Points as printed everywhere: at most 2 decimals, no trailing zeros ("2", "1.5", "0.33").
std::string points_str(double p);

}  // namespace attn::grade
