// cli/grade.cpp — `attn grade`: one student's answer files, a whole class folder
// (--class), or a Gradescope run (--gradescope). Parses options, calls the grade
// library, prints or writes the chosen formats. Exit: 0 graded (with --strict: only
// at full marks), 1 below full marks with --strict, 2 bad input or usage.
#include <chrono>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/grade_output.hpp"
#include "cli/layout.hpp"
#include "core/error.hpp"
#include "cli/verbs.hpp"
#include "core/keyed_hash.hpp"
#include "grade/class_batch.hpp"
#include "grade/grader.hpp"
#include "grade/item_analysis.hpp"
#include "grade/regrade.hpp"
#include "grade/reviews.hpp"
#include "io/csv_cell.hpp"
#include "io/input_read.hpp"
#include "io/output_writer.hpp"
#include "io/terminal_safe.hpp"
#include "lessons/lesson_loader.hpp"

namespace attn::cli {

namespace {

struct grade_cli {
    std::vector<std::string> paths;
    std::string student;
    std::string secret_file;
    bool lesson_numbers = false;
    std::vector<std::string> exercises;
    std::vector<int> lessons_picked;
    std::string format = "text";
    std::string junit;
    bool strict = false;
    std::size_t max_bytes = 1u << 20;
    std::string class_dir;
    std::string gradebook = "gradebook.csv";
    std::string histogram;
    bool time = false;
    bool gradescope = false;
    std::string submission_dir = "/autograder/submission";
    std::string results = "/autograder/results/results.json";
    std::string metadata = "/autograder/submission_metadata.json";
    std::string visibility;  // "" = the assignment's, else visible
    std::string assignment;  // --assignment FILE
    std::string feedback;    // --feedback LEVEL ("" = the assignment's, else the mode's default)
    layout_options layout;  // --width/--full of the text report
    bool fingerprint = false;
    bool guessable_secret_ok = false;  // accept a secret grade/secret.hpp calls guessable
    bool small_variant_space_ok = false;  // with --class: accept variants shared by > 1% of the class (grade/variant_space.hpp)
    std::string reviews;       // the teacher's filled-in review sheet (open exercises)
    std::string review_sheet;  // where to write the review sheet
    std::string canvas, moodle;     // with --class: the totals in Canvas's / Moodle's grade import CSV
    std::string lms_column = "attn";  // the assignment's column name in those files
    bool item_analysis = false;     // with --class: the item analysis in the summary (text or JSON)
    std::string item_analysis_csv;  // with --class: and as CSV to this file
    std::string regrade;            // with --class: the previous class JSON to compare with
    std::string submitted_at;       // the submission times (CSV student,submitted_at) for the assignment's late policy
};

// The teacher's check that hand-out and autograder share a secret (standard error).
void say_fingerprint(const grade_cli& o, const std::string& secret) {
    if (!o.fingerprint) return;
    std::cerr << "attn: " << (secret.empty() ? std::string("no course secret (practice numbers)")
                                              : "course secret fingerprint " + secret_fingerprint(secret) + " (from " +
                                                    (o.secret_file.empty() ? std::string("ATTN_COURSE_SECRET") : o.secret_file) + ")")
              << "\n";
}

// The assignment's late policy with its times: --submitted-at's CSV, or (a Gradescope
// run without it) the metadata's created_at, which run_gradescope adds.
void attach_late(const grade_cli& o, const std::optional<grade::late_policy>& policy, grade::grade_options& g) {
    if (!policy) {
        if (!o.submitted_at.empty())
            throw attn::error("--submitted-at needs an assignment with a [late] table (docs/teaching.md, \"Late work\")");
        return;
    }
    if (o.gradescope && o.submitted_at.empty()) return;
    if (o.submitted_at.empty())
        throw attn::error(o.assignment + ": its [late] policy needs the submission times: --submitted-at FILE (a CSV student,submitted_at)");
    auto w = std::make_shared<grade::late_work>();
    w->policy = *policy;
    w->times_file = o.submitted_at;
    w->times = grade::read_times_csv(o.submitted_at, "submitted_at", "submission times file");
    g.late = std::move(w);
}

// The default feedback level: a teacher's own run shows everything; a Gradescope run,
// which students read, never shows an expected value (see grade/grader.hpp).
grade::grade_options options_of(const grade_cli& o, const grade::exercise_set& set, grade::feedback_level level,
                                grade::assignment* read = nullptr) {
    grade::grade_options g;
    g.feedback = level;
    g.student = o.student;
    g.lesson_numbers = o.lesson_numbers;
    g.secret = grade::course_secret(o.secret_file, o.guessable_secret_ok);
    say_fingerprint(o, g.secret);
    g.exercise_ids = o.exercises;
    for (int n : o.lessons_picked) {
        bool any = false;
        for (const auto& x : set.all)
            if (x.lesson == n) {
                g.exercise_ids.push_back(x.id);
                any = true;
            }
        if (!any) throw attn::error("--lesson " + std::to_string(n) + ": that lesson has no exercises");
    }
    for (const auto& id : g.exercise_ids)
        if (!set.find(id)) throw attn::error("no exercise '" + id + "' (`attn exercise list` shows them)");
    const auto forced = o.feedback.empty() ? std::nullopt : grade::feedback_level_from(o.feedback);
    if (o.assignment.empty()) {
        if (forced) g.feedback = *forced;
        attach_late(o, std::nullopt, g);  // refuses --submitted-at
    } else {
        if (!g.exercise_ids.empty()) throw attn::error("--assignment names the exercises: drop --exercises and --lesson");
        const grade::assignment a = grade::read_assignment(o.assignment, set);
        grade::apply_assignment(a, g, forced);
        attach_late(o, a.late, g);
        if (read) *read = a;
    }
    // A review sheet's points are out of the assignment's points for the part (its `max`).
    if (!o.reviews.empty())
        g.reviews = std::make_shared<grade::review_table>(grade::review_table::read(o.reviews, grade::weighed_set(set, g)));
    return g;
}

// Standard input ("-") is read in bounded chunks (never past --max-bytes); its name
// in reports is <stdin>.
grade::submission read_one(const std::string& path, const grade::read_limits& limits) {
    if (path != "-") return grade::read_submission_path(path, limits);
    const std::string text = io::read_input_file("-", io::input_limits{limits.max_bytes, false});
    const auto first = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    return grade::read_submission_text(text, "<stdin>", first != std::string::npos && text[first] == '{', limits);
}

void write_or_print(const std::string& path, const std::string& text) {
    write_file_atomic(path, text);  // "-": standard output (io::output_writer)
}

// The LMS upload files (docs/teaching.md, "Uploading the scores"): Canvas's gradebook
// import CSV — Student, ID, SIS User ID, SIS Login ID, Section, then the assignment's
// column, and a "Points Possible" row; attn's id goes in SIS Login ID, which Canvas
// matches — and Moodle's grade import CSV: an identifier column (mapped to the
// username, email or ID number on import) and the grade. Not-gradable students get 0.
std::string canvas_header(const grade_cli& o, double max) {
    return "Student,ID,SIS User ID,SIS Login ID,Section," + io::csv_text_cell(o.lms_column) +
           "\n    Points Possible,,,,," + grade::points_str(max) + "\n";
}
std::string canvas_row(const grade::grade_report& r) {
    return ",,," + io::csv_text_cell(r.student) + ",," + grade::points_str(r.gradable ? r.score : 0.0) + "\n";
}
std::string moodle_header(const grade_cli& o) { return "student," + io::csv_text_cell(o.lms_column) + "\n"; }
std::string moodle_row(const grade::grade_report& r) {
    return io::csv_text_cell(r.student) + "," + grade::points_str(r.gradable ? r.score : 0.0) + "\n";
}

int strict_code(const grade_cli& o, bool full) { return o.strict && !full ? 1 : 0; }

int run_files(const grade_cli& o) {
    const auto set = grade::load_exercise_set(lessons::lessons_dir());
    const auto g = options_of(o, set, grade::feedback_level::full);
    grade::read_limits limits;
    limits.max_bytes = o.max_bytes;
    if (!o.review_sheet.empty()) io::output_writer(false, true).check_file(o.review_sheet);
    grade::submission all;
    try {
        for (const auto& p : o.paths) {
            grade::submission one = read_one(p, limits);
            if (all.files.empty()) all = std::move(one);
            else grade::merge_submission(all, std::move(one));
        }
    } catch (const error& e) {  // the submission's problem (input, syntax, layout ...)
        std::cerr << "attn grade: not gradable (" << e.reason << "): " << io::terminal_safe(e.what()) << "\n";
        if (!o.junit.empty()) {
            auto r = grade::not_gradable(o.student, o.paths.front(), e, set, g);
            write_or_print(o.junit, grade::junit_xml({r}));
        }
        return 2;
    }
    const grade::grade_report r = grade::grade_submission(all, set, g);
    if (o.format == "json") std::cout << grade::report_json(r).dump(2) << "\n";
    else print_fitted(grade::report_text(r), make_style(o.layout));
    if (!o.junit.empty()) write_or_print(o.junit, grade::junit_xml({r}));
    if (!o.review_sheet.empty()) write_or_print(o.review_sheet, grade::review_sheet_header() + grade::review_sheet_rows(r, set));
    return strict_code(o, r.full_marks());
}

int run_class(const grade_cli& o) {
    const auto start = std::chrono::steady_clock::now();
    const auto set = grade::load_exercise_set(lessons::lessons_dir());
    auto g = options_of(o, set, grade::feedback_level::full);
    g.practice_ok = false;  // a class is graded on its own numbers, never on practice ones
    g.small_variant_space_ok = o.small_variant_space_ok;
    grade::read_limits limits;
    limits.max_bytes = o.max_bytes;
    // Each report is written out as soon as it is graded: the gradebook row by row (a
    // temporary file renamed at the end), JSON students and JUnit suites one by one.
    // With the gradebook on standard output, the summary goes to standard error.
    std::ostream& summary = io::is_stdout(o.gradebook) ? std::cerr : std::cout;
    std::optional<grade::regrade_base> base;    // --regrade: read before anything is written
    std::vector<grade::regrade_entry> changed;   // the students whose grade moved, in id order
    std::size_t compared = 0;
    if (!o.regrade.empty()) base = grade::regrade_base::read(o.regrade);
    std::optional<streamed_file> book, junit, json, sheet, canvas, moodle;
    if (!o.canvas.empty()) canvas.emplace(o.canvas);
    if (!o.moodle.empty()) moodle.emplace(o.moodle);
    if (!o.histogram.empty() && !io::is_stdout(o.histogram))  // refused before the gradebook is written, not after
        io::output_writer(false, true).check_file(o.histogram);
    book.emplace(o.gradebook);
    if (!o.review_sheet.empty()) sheet.emplace(o.review_sheet);
    if (sheet) sheet->write(grade::review_sheet_header());
    if (!o.junit.empty()) junit.emplace(io::is_stdout(o.junit) && io::is_stdout(o.gradebook) ? std::string("/dev/stderr") : o.junit);
    bool header = false, first_json = true;
    std::vector<std::string> ids;
    std::optional<grade::item_analysis> items;  // made with the columns
    if (o.format == "json") summary << grade::class_json_open();
    const grade::class_result c = grade::grade_class(o.class_dir, set, g, limits, [&](const grade::grade_report& r) {
        if (!header) {  // the columns are known once grading starts
            ids.clear();
            for (const auto& x : r.exercises) ids.push_back(x.id);
            book->write(grade::gradebook_header(ids, g.late != nullptr));
            if (o.item_analysis || !o.item_analysis_csv.empty()) items.emplace(set, g, ids);
            if (canvas) canvas->write(canvas_header(o, r.max));
            if (moodle) moodle->write(moodle_header(o));
            if (junit) junit->write(grade::junit_open());
            header = true;
        }
        book->write(grade::gradebook_row(r, ids, g.late != nullptr));
        if (items) items->add(r);
        if (base) {
            ++compared;
            if (auto e = base->compare(r)) changed.push_back(std::move(*e));
        }
        if (canvas) canvas->write(canvas_row(r));
        if (moodle) moodle->write(moodle_row(r));
        if (sheet) sheet->write(grade::review_sheet_rows(r, set));
        if (junit) junit->write(grade::junit_suite(r));
        if (o.format == "json") summary << grade::class_json_student(r, first_json);
        first_json = false;
    });
    if (!header) book->write(grade::gradebook_header(c.exercise_ids, g.late != nullptr));
    book->commit();
    if (canvas) {
        if (!header) canvas->write(canvas_header(o, 0.0));
        canvas->commit();
    }
    if (moodle) {
        if (!header) moodle->write(moodle_header(o));
        moodle->commit();
    }
    if (sheet) sheet->commit();
    if (junit) {
        if (!header) junit->write(grade::junit_open());
        junit->write(grade::junit_close());
        junit->commit();
    }
    if (!o.histogram.empty()) write_or_print(o.histogram, grade::histogram_csv(c));
    if (!items && (o.item_analysis || !o.item_analysis_csv.empty())) items.emplace(set, g, c.exercise_ids);
    if (!o.item_analysis_csv.empty()) write_or_print(o.item_analysis_csv, items->csv());
    if (o.format == "json") {
        std::string close = grade::class_json_close(c);  // ends "\n}\n"
        if (o.item_analysis) close.insert(close.size() - 3, ",\n\"item_analysis\": " + items->json().dump(2));
        if (base) close.insert(close.size() - 3, ",\n\"regrade\": " + grade::regrade_json(*base, changed).dump(2));
        summary << close;
    } else {
        summary << grade::class_summary_text(c);
        if (o.item_analysis) summary << items->text();
        if (base) summary << grade::regrade_text(*base, changed, compared);
        if (!g.secret.empty()) summary << "Course secret fingerprint: " << secret_fingerprint(g.secret) << "\n";
        if (!io::is_stdout(o.gradebook)) summary << "\nGradebook: " << o.gradebook << " (" << c.students << " students)\n";
    }
    summary.flush();
    if (o.time) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cerr << "graded " << c.students << " submissions in " << s << " s\n";
    }
    return strict_code(o, c.students > 0 && c.all_full);
}

// A Gradescope run's late policy: each submitter submitted at the metadata's created_at
// (none readable: no time, and apply_late notes it for the teacher).
void late_from_metadata(const grade_cli& o, const grade::late_policy& policy, const grade::gradescope_metadata& meta,
                        grade::grade_options& g) {
    auto w = std::make_shared<grade::late_work>();
    w->policy = policy;
    w->times_file = o.metadata + " (created_at)";
    std::string why;
    if (const auto us = grade::parse_time(meta.created_at, &why))
        for (const auto& s : g.student.empty() ? meta.students : std::vector<std::string>{g.student})
            w->times[grade::normalize_student_id(s)] = {*us, meta.created_at, {}};
    g.late = std::move(w);
}

// Gradescope: results.json is written whatever happens, so the student always sees why.
int run_gradescope(const grade_cli& o) {
    grade::grade_report r;
    grade::assignment a;
    auto write = [&](const grade::grade_report& rep) {
        const grade::gradescope_visibility vis{a.visibility.empty() ? "visible" : a.visibility, o.visibility, a.release_expected};
        write_or_print(o.results, grade::gradescope_results(rep, vis).dump(2) + "\n");
    };
    try {
        const auto set = grade::load_exercise_set(lessons::lessons_dir());
        grade::grade_options g = options_of(o, set, grade::feedback_level::mistakes, &a);
        g.practice_ok = false;
        const grade::gradescope_metadata meta = grade::read_gradescope_metadata(o.metadata);
        const std::string tries = grade::apply_tries(a, meta.previous_submissions, g);
        if (a.late && !g.late) late_from_metadata(o, *a.late, meta, g);
        grade::read_limits limits;
        limits.max_bytes = o.max_bytes;
        // Who submitted: Gradescope's metadata (every member of a group), or --student
        // when testing the set-up; never the `student` key inside the submission.
        std::vector<std::string> members = g.student.empty() ? meta.students
                                                             : std::vector<std::string>{g.student};
        if (!members.empty()) g.student = members.front();
        try {
            if (members.empty())
                throw grade::submission_error("identity", {o.metadata, 0, 0},
                                              o.metadata + " names no submitter (a user's sid, email or id), so the autograder "
                                                           "cannot tell whose numbers to grade; please tell your teacher");
            const grade::submission sub = grade::read_submission_path(o.submission_dir, limits);
            r = grade::grade_group(sub, set, g, members);
            grade::make_paths_relative(r, o.submission_dir);
            if (!tries.empty()) r.notes.push_back(tries);
        } catch (const grade::variant_error&) {
            throw;  // the course's setup, not the student's submission
        } catch (const error& e) {
            r = grade::not_gradable(g.student, o.submission_dir, e, set, g);
            grade::make_paths_relative(r, o.submission_dir);
        }
        write(r);
    } catch (const std::exception& e) {  // the course's setup is broken: still tell the student something
        grade::grade_report broken;
        broken.gradable = false;
        broken.reason_word = "setup";
        broken.reason = std::string("the autograder is misconfigured (") + e.what() + "); please tell your teacher";
        write(broken);
        std::cerr << "attn grade: " << io::terminal_safe(e.what()) << "\n";
        return 2;
    }
    if (!io::is_stdout(o.results)) std::cout << grade::report_text(r);
    return strict_code(o, r.full_marks());
}

}  // namespace

void setup_grade(CLI::App& app) {
    auto o = std::make_shared<grade_cli>();
    auto* sub = app.add_subcommand("grade", "Grade answer files: one student, a class folder, or a Gradescope run");
    sub->add_option("FILE", o->paths, "Answer files or a student's folder (- reads standard input); one student");
    sub->add_option("--student", o->student, "Student id (overrides the file's `student`)");
    sub->add_option("--secret-file", o->secret_file, "File whose first line is the course secret (else $ATTN_COURSE_SECRET)");
    sub->add_flag("--no-variants", o->lesson_numbers, "Grade on the lessons' own numbers, not per-student ones");
    // One list per --exercises (and one N per --lesson): a FILE after them stays a FILE.
    sub->add_option("--exercises", o->exercises, "The assignment: exercise ids (default: those answered)")
        ->delimiter(',')
        ->allow_extra_args(false);
    sub->add_option("--lesson", o->lessons_picked, "Add every exercise of lesson N to the assignment")->allow_extra_args(false);
    sub->add_option("--assignment", o->assignment, "Assignment file (TOML): exercises, points, feedback levels, visibility");
    sub->add_option("--feedback", o->feedback, "full, mistakes (no expected values) or score; default full, mistakes with --gradescope")
        ->check(CLI::IsMember(grade::feedback_level_words));
    sub->add_option("--format", o->format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
    sub->add_option("--junit", o->junit, "Also write JUnit XML to this file (- for standard output)");
    add_layout_options(*sub, o->layout, false);
    sub->add_flag("--strict", o->strict, "Exit 1 unless every point is earned (GitHub Classroom)");
    sub->add_option("--max-bytes", o->max_bytes, "Largest submission read, in bytes (default 1048576)")->check(CLI::PositiveNumber);
    sub->add_option("--class", o->class_dir, "Grade every submission in this folder (one file or folder per student)");
    sub->add_option("--gradebook", o->gradebook, "With --class: the CSV gradebook (default gradebook.csv; - for standard output)");
    sub->add_option("--histogram", o->histogram, "With --class: also write the misconception histogram as CSV");
    sub->add_flag("--item-analysis", o->item_analysis,
                  "With --class: each part's facility, discrimination and commonest mistakes, the totals' histogram and "
                  "Cronbach's alpha (in the summary, or its JSON)");
    sub->add_option("--canvas", o->canvas, "With --class: also write the totals as a Canvas gradebook import CSV");
    sub->add_option("--moodle", o->moodle, "With --class: also write the totals as a Moodle grade import CSV");
    sub->add_option("--lms-column", o->lms_column, "The assignment's column name in --canvas and --moodle files (default attn)");
    sub->add_option("--item-analysis-csv", o->item_analysis_csv, "With --class: also write the item analysis as CSV");
    sub->add_option("--regrade", o->regrade,
                    "With --class: compare with a previous class JSON (--format json) and list what changed for whom, and why");
    sub->add_option("--submitted-at", o->submitted_at,
                    "When each student submitted (CSV student,submitted_at), for the assignment's [late] policy");
    sub->add_flag("--time", o->time, "With --class: say on standard error how long grading took");
    sub->add_flag("--gradescope", o->gradescope, "Gradescope: read the submission folder, always write results.json");
    sub->add_option("--submission", o->submission_dir, "With --gradescope: the submission folder (default /autograder/submission)");
    sub->add_option("--results", o->results, "With --gradescope: results.json (default /autograder/results/results.json; - prints it)");
    sub->add_option("--metadata", o->metadata, "With --gradescope: submission_metadata.json, for the student id");
    sub->add_option("--review-sheet", o->review_sheet,
                    "Also write the open answers as a CSV sheet for the teacher to fill in (points, comment)");
    sub->add_option("--reviews", o->reviews, "The teacher's filled-in review sheet: its points count for the open exercises");
    sub->add_flag("--guessable-secret-ok", o->guessable_secret_ok,
                  "Accept a guessable course secret (students' variant codes then let anyone find it, and every student's numbers)");
    sub->add_flag("--small-variant-space-ok", o->small_variant_space_ok,
                  "With --class: grade an exercise whose variants more than 1% of the class would share (copies between "
                  "them cannot be flagged)");
    sub->add_flag("--fingerprint", o->fingerprint, "Say on standard error which course secret is used (a short fingerprint)");
    sub->add_option("--visibility", o->visibility, "With --gradescope: visible, hidden, after_due_date or after_published")
        ->check(CLI::IsMember(grade::gradescope_visibilities));
    sub->callback([o] {
        const int modes = (o->gradescope ? 1 : 0) + (!o->class_dir.empty() ? 1 : 0) + (!o->paths.empty() ? 1 : 0);
        if (modes != 1)
            throw attn::error(attn::source_pos{"grade"}, "give answer FILEs, or --class DIR, or --gradescope (exactly one of them)");
        int code = o->gradescope ? run_gradescope(*o) : !o->class_dir.empty() ? run_class(*o) : run_files(*o);
        if (code != 0) throw exit_request{code};
    });
}

}  // namespace attn::cli
