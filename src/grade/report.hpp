// grade/report.hpp — what grading found, and its formats: text (report_text.cpp), JSON
// (report_json.cpp), Gradescope results.json (report_gradescope.cpp), JUnit XML
// (report_junit.cpp), the CSV gradebook (class_batch.cpp). Pure functions: the CLI
// writes the files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

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
inline const std::vector<std::string> feedback_level_words = {"full", "mistakes", "score"};  // in feedback_level order
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
    std::string answer_digest;   // a digest of the student's answer, "" when none (what --regrade compares)
    std::string tolerance;       // "rtol 0.001, atol 0.001" (numeric parts, in the JSON: what --regrade compares)
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

// What an assignment's late policy did to a report (grade/late.hpp).
struct late_result {
    std::string due, submitted;  // as written (the student's own due date when extended)
    bool extended = false;
    double hours = 0.0;          // hours after the due date; 0 when on time
    long long periods = 0;       // started days (or hours) late
    double before = 0.0, deduction = 0.0;  // the score before; what was deducted (the score after is score)
    std::string note;            // "26.50 hours late (due …): 2 started days × 10% of 10 points: 8.5 − 2 = 6.5"
};

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
    std::optional<late_result> late;  // the late policy's deduction, when an assignment has one
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
inline const std::vector<std::string> gradescope_visibilities = {"visible", "hidden", "after_due_date", "after_published"};

// Gradescope's results.json: score, max_score, output, tests[] with name, number,
// score, max_score, status ("passed"/"failed"), output, visibility. Each test shows its
// exercise's feedback level. By Gradescope's rules a test at after_due_date or
// after_published hides the student's total until then (hidden tests carry no points
// and do not); the output then says when the total is shown.
nlohmann::json gradescope_results(const grade_report& r, const gradescope_visibility& v = {});

// Gradescope's submission_metadata.json: the submitters' ids, one per user (a group
// submission has several): each user's sid, else email, else id — an empty or blank
// field falls through to the next; and how many submissions the student made before
// this one (previous_submissions), and when it was made (created_at). None and 0 when the file is missing or unusable.
struct gradescope_metadata {
    std::vector<std::string> students;
    std::size_t previous_submissions = 0;
    std::string created_at;  // when this submission was made (ISO 8601), "" when absent
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
