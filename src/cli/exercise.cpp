// cli/exercise.cpp — `attn exercise list|show|template|check`: what a student is
// handed. Without a course secret, show and template give the practice variant and
// `check ANSWERS` grades answers to it (self-study); with no file, `check` checks the
// lessons' exercise declarations. The grade library does the work; this file parses
// options and prints.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/layout.hpp"
#include "core/error.hpp"
#include "cli/verbs.hpp"
#include "core/keyed_hash.hpp"
#include "grade/exercise.hpp"
#include "grade/grader.hpp"
#include "grade/report.hpp"
#include "grade/show.hpp"
#include "grade/variant.hpp"
#include "grade/variant_space.hpp"
#include "io/input_read.hpp"
#include "io/output_writer.hpp"
#include "io/terminal_safe.hpp"
#include "io/text_decode.hpp"
#include "io/toml_read.hpp"
#include "io/utf8.hpp"
#include "lessons/lesson_loader.hpp"
#include "lessons/progress.hpp"
#include "trace/text_width.hpp"

namespace attn::cli {

namespace {

struct exercise_options {
    std::vector<std::string> ids;
    std::string student;
    std::string secret_file;
    std::string seed;
    bool lesson_numbers = false;
    std::string format;
    std::string output;
    bool force = false;
    int lesson = 0;
    bool fingerprint = false;
    bool guessable_secret_ok = false;  // accept a secret grade/secret.hpp calls guessable (as `grade` does)
    bool small_variant_space_ok = false;  // template --roster: accept variants > 1% of the roster share (grade/variant_space.hpp)
    std::vector<std::string> answer_files;
    std::string students_file;
    std::string assignment;  // template: the assignment's exercises
    std::string roster;      // template: one hand-out per student of this list, into out_dir
    std::string out_dir;
    std::size_t width = 0;  // template --width: comment lines fitted to it (0: as written)
};

// Student ids, one a line (blank lines and # comments skipped), for the teacher's batch
// (show --students, template --roster), each with its line: UTF-8, or UTF-16/32 with a
// byte-order mark; a NUL byte (UTF-16 without the mark) or bytes that are not UTF-8 are
// refused at file:line:col, and an id listed twice at its second line.
struct roster_entry {
    std::string id;  // normalised (grade::normalize_student_id)
    int line = 0;
};
std::vector<roster_entry> read_roster(const std::string& path, const std::string& what) {
    io::input_limits limits;
    limits.what = what;
    const std::string file = path == "-" ? io::stdin_name : path;
    std::istringstream in(io::decoded_text(io::read_input_file(path, limits), file));
    std::vector<roster_entry> out;
    std::map<std::string, int> seen;
    int n = 0;
    for (std::string line; std::getline(in, line);) {
        ++n;
        std::size_t bad = line.find('\0');
        if (bad != std::string::npos || !io::valid_utf8(line, &bad))
            throw attn::error({file, n, static_cast<int>(bad) + 1},
                              "the " + what + " is not UTF-8 text (UTF-16 needs its byte-order mark); save it as UTF-8, one student id a line");
        const std::string id = grade::normalize_student_id(line);
        if (id.empty() || id[0] == '#') continue;
        if (const auto [it, fresh] = seen.emplace(id, n); !fresh)
            throw attn::error({file, n, 1}, "student '" + io::terminal_safe(id) + "' is listed twice (also at line " + std::to_string(it->second) + ")");
        out.push_back({id, n});
    }
    return out;
}

// Why an id cannot name its hand-out file (the file's name is the id `attn grade --class`
// reads back), or "": a path separator, a character some systems refuse, a control
// character, a leading '.' or '-', or a name too long.
std::string unusable_file_name(const std::string& id) {
    if (id.find_first_of("/\\:*?\"<>|") != std::string::npos) return "it holds a character file names cannot: / \\ : * ? \" < > |";
    if (io::terminal_safe(id) != id) return "it holds a control character";
    if (id[0] == '.' || id[0] == '-') return "a file name starting with '.' or '-' is hidden or read as an option";
    if (id.size() > 200) return "it is over 200 bytes";
    return "";
}

grade::variant_request request_of(const exercise_options& o) {
    grade::variant_request r;
    r.student = o.student;
    r.lesson_numbers = o.lesson_numbers;
    if (!o.seed.empty()) {
        char* end = nullptr;
        const unsigned long long v = std::strtoull(o.seed.c_str(), &end, 0);
        if (!end || *end) throw attn::error("--seed must be a number such as 0x1a2b3c4d5e6f7081, found '" + o.seed + "'");
        r.seed = v;
    }
    r.secret = grade::course_secret(o.secret_file, o.guessable_secret_ok);
    if (o.fingerprint)  // for the teacher: the hand-out and the autograder must agree
        std::cerr << "attn: " << (r.secret.empty() ? std::string("no course secret: practice numbers")
                                                   : "course secret fingerprint " + secret_fingerprint(r.secret))
                  << "\n";
    return r;
}

// IDs, or a lesson number ("4", "04") meaning every exercise of that lesson.
std::vector<const grade::exercise*> pick(const grade::exercise_set& set, const std::vector<std::string>& ids) {
    std::vector<const grade::exercise*> out;
    for (const auto& id : ids) {
        if (const auto* x = set.find(id)) {
            out.push_back(x);
            continue;
        }
        if (!id.empty() && id.size() <= 2 && id.find_first_not_of("0123456789") == std::string::npos) {
            const int n = std::stoi(id);
            std::size_t before = out.size();
            for (const auto& x : set.all)
                if (x.lesson == n) out.push_back(&x);
            if (out.size() > before) continue;
        }
        std::vector<std::string> ids;
        for (const auto& x : set.all) ids.push_back(x.id);
        throw attn::error("no exercise '" + id + "'" + io::hint_suffix(id, ids) +
                                    " (`attn exercise list` shows them)");
    }
    return out;
}

// A practice check counts in `attn lessons` as answering in the lesson does: each
// graded exercise is right (full marks) or tried. A progress file that cannot be
// read or written is named, never fatal.
void record_progress(const grade::grade_report& r) {
    const std::string path = lessons::progress_path();
    if (path.empty()) return;
    lessons::progress_load saved = lessons::load_progress(path);
    if (!saved.problem.empty())
        std::cerr << io::terminal_safe_text("attn: progress file " + path + " ignored: " + saved.problem) << "\n";
    bool any = false;
    for (const auto& x : r.exercises) {
        bool tried = false;  // a template's TODO is no try
        for (const auto& part : x.parts) tried = tried || part.status != grade::part_status::unanswered;
        if (!tried) continue;
        saved.p.record(x.id, x.max > 0 && x.score >= x.max);
        any = true;
    }
    if (!any) return;
    try {
        lessons::save_progress(path, saved.p);
    } catch (const std::exception& e) {
        std::cerr << io::terminal_safe_text(std::string("attn: progress not saved: ") + e.what()) << "\n";
    }
}

// An answer file's comments fitted to `width` columns, each piece a comment again, so
// the file stays valid TOML. The answer lines themselves are data: kept whole.
std::string comments_fitted(const std::string& text, std::size_t width) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("# ", 0) != 0 || trace::display_width(line) <= width) {
            out += line + "\n";
            continue;
        }
        std::istringstream pieces(trace::fit_line(line.substr(2), width - 2));
        for (std::string piece; std::getline(pieces, piece);) out += "# " + piece + "\n";
    }
    return out;
}

void emit(const exercise_options& o, const std::string& text) {
    // An answer file may already hold a student's work: never replaced without --force.
    io::output_writer(o.force).write_file(o.output.empty() ? "-" : o.output, text, io::existing::keep);
}

std::string answer_file(const exercise_options& o, const std::vector<const grade::exercise*>& xs, const grade::variant_request& req) {
    return o.format == "json" ? grade::template_json(xs, req)
                              : o.width ? comments_fitted(grade::template_toml(xs, req), o.width) : grade::template_toml(xs, req);
}

// template --roster R --out DIR: every student's answer file, their own numbers, named
// by their id. The roster is checked whole first (an id that cannot be a file name is
// refused at its line, nothing written); a file already there is kept, never replaced,
// and named.
void hand_out(const exercise_options& o, const std::vector<const grade::exercise*>& xs) {
    if (o.out_dir.empty() || !o.output.empty() || !o.student.empty())
        throw attn::error("--roster writes one file per student into --out DIR (no -o, no --student)");
    const auto roster = read_roster(o.roster, "roster");
    for (const auto& e : roster)
        if (const std::string why = unusable_file_name(e.id); !why.empty())
            throw attn::error({o.roster, e.line, 1}, "student '" + io::terminal_safe(e.id) + "' cannot name a hand-out file: " + why);
    auto req = request_of(o);
    if (req.secret.empty() || req.lesson_numbers)
        throw attn::error("--roster hands out each student's own numbers: give the course secret (--secret-file or ATTN_COURSE_SECRET)");
    req.practice_ok = false;
    if (!o.small_variant_space_ok) {  // before anything is written: the roster's size decides
        std::set<std::string> students;
        for (const auto& e : roster) students.insert(grade::normalize_student_id(e.id));
        grade::check_variant_spaces(xs, students.size(), "--small-variant-space-ok");
    }
    std::filesystem::create_directories(o.out_dir);
    const std::string ext = o.format == "json" ? ".json" : ".toml";
    std::size_t written = 0;
    std::vector<std::string> kept;
    for (const auto& e : roster) {
        const std::filesystem::path path = std::filesystem::path(o.out_dir) / (e.id + ext);
        std::error_code ec;
        if (std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found) {
            kept.push_back(e.id + ext);
            continue;
        }
        req.student = e.id;
        io::output_writer(false).write_file(path.string(), answer_file(o, xs, req), io::existing::keep);
        ++written;
    }
    std::cout << "wrote " << written << (written == 1 ? " answer file" : " answer files") << " to "
              << io::terminal_safe(o.out_dir) << " (" << xs.size() << (xs.size() == 1 ? " exercise" : " exercises") << " each)\n";
    for (const auto& k : kept) std::cout << "kept " << io::terminal_safe(k) << ": it exists (a student's work is never replaced)\n";
}

}  // namespace

void setup_exercise(CLI::App& app) {
    auto o = std::make_shared<exercise_options>();
    auto* sub = app.add_subcommand("exercise", "List, show and hand out exercises (with each student's own numbers)");
    sub->require_subcommand(1);
    auto variant_flags = [o](CLI::App* c) {
        c->add_option("--student", o->student, "Student id: their own numbers (needs the course secret)");
        c->add_option("--secret-file", o->secret_file, "File whose first line is the course secret (else $ATTN_COURSE_SECRET)");
        c->add_option("--seed", o->seed, "Regenerate a recorded variant from its seed (as printed in a report)");
        c->add_flag("--no-variants", o->lesson_numbers, "The lesson's own numbers even with --student");
        c->add_flag("--fingerprint", o->fingerprint, "Say on standard error which course secret is used (a short fingerprint)");
        c->add_flag("--guessable-secret-ok", o->guessable_secret_ok,
                    "Accept a guessable course secret (students' variant codes then let anyone find it, and every student's numbers)");
    };

    auto layout = std::make_shared<layout_options>();  // --width/--full of list and show
    auto* list = sub->add_subcommand("list", "Every exercise of every lesson");
    list->add_option("--lesson", o->lesson, "Only this lesson's exercises");
    list->callback([o, layout] {
        auto set = grade::load_exercise_set(lessons::lessons_dir());
        if (o->lesson > 0) {
            std::vector<grade::exercise> keep;
            for (auto& x : set.all)
                if (x.lesson == o->lesson) keep.push_back(x);
            set.all = keep;
        }
        print_fitted(grade::list_text(set), make_style(*layout));
    });
    add_layout_options(*list, *layout, false);

    auto* show = sub->add_subcommand("show", "One exercise with a student's numbers, parts, shapes and tolerances");
    show->add_option("ID", o->ids, "Exercise id (see `attn exercise list`)")->required()->expected(1);
    variant_flags(show);
    show->add_option("--format", o->format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
    show->add_option("--students", o->students_file,
                     "Teachers: a file of student ids (one a line); prints each one's numbers as one JSON line (needs the secret)");
    show->callback([o, layout] {
        const auto set = grade::load_exercise_set(lessons::lessons_dir());
        const auto xs = pick(set, o->ids);
        auto req = request_of(*o);
        if (!o->students_file.empty()) {  // JSON Lines, one per student and exercise
            req.practice_ok = false;
            for (const auto& e : read_roster(o->students_file, "student list")) {
                req.student = e.id;
                for (const auto* x : xs) std::cout << grade::show_json(*x, req).dump() << "\n";
            }
            return;
        }
        for (const auto* x : xs) {
            if (o->format == "json") std::cout << grade::show_json(*x, req).dump(2) << "\n";
            else print_fitted(grade::show_text(*x, req, make_style(*layout)), make_style(*layout));
        }
    });
    add_layout_options(*show, *layout, false);

    auto* tmpl = sub->add_subcommand("template", "An answer file to fill in, for one or more exercises (or a lesson number)");
    tmpl->add_option("ID", o->ids, "Exercise ids, or lesson numbers for all of a lesson's exercises");
    variant_flags(tmpl);
    tmpl->add_option("--format", o->format, "toml (default) or json")->check(CLI::IsMember({"toml", "json"}));
    tmpl->add_option("-o,--output", o->output, "Write to this file (default: standard output); an existing file is kept");
    tmpl->add_flag("--force", o->force, "With -o: replace an existing answer file");
    tmpl->add_option("--assignment", o->assignment, "The exercises of this assignment file (instead of IDs)");
    tmpl->add_option("--roster", o->roster, "Teachers: a file of student ids (one a line): one answer file each, into --out DIR");
    tmpl->add_option("--out", o->out_dir, "With --roster: the folder of the answer files (STUDENT.toml); existing files are kept");
    tmpl->add_flag("--small-variant-space-ok", o->small_variant_space_ok,
                   "With --roster: hand out an exercise whose variants more than 1% of the roster would share");
    tmpl->callback([o] {
        const auto set = grade::load_exercise_set(lessons::lessons_dir());
        if (!o->assignment.empty() && !o->ids.empty()) throw attn::error("--assignment names the exercises: drop the IDs");
        if (o->assignment.empty() && o->ids.empty()) throw attn::error("give exercise IDs (or lesson numbers), or --assignment FILE");
        const auto xs = pick(set, o->assignment.empty() ? o->ids : grade::read_assignment(o->assignment, set).exercise_ids);
        if (!o->roster.empty()) return hand_out(*o, xs);
        if (!o->out_dir.empty()) throw attn::error("--out DIR goes with --roster; for one student use -o FILE");
        const auto req = request_of(*o);
        emit(*o, answer_file(*o, xs, req));
    });
    add_width_option(*tmpl, o->width);

    auto* check = sub->add_subcommand(
        "check", "Check answers to the practice numbers (ANSWERS files); without files, check every [[exercise]] of the lessons");
    check->add_option("ANSWERS", o->answer_files, "Answer files written from `attn exercise template` without a course secret");
    auto check_layout = std::make_shared<layout_options>();
    add_layout_options(*check, *check_layout, false);
    check->callback([o, check_layout] {
        const auto set = grade::load_exercise_set(lessons::lessons_dir());
        if (o->answer_files.empty()) {
            std::cout << "ok: " << set.all.size() << " exercises\n";
            return;
        }
        grade::submission all;
        for (const auto& p : o->answer_files) {
            grade::submission one = grade::read_submission_path(p);
            if (all.files.empty()) all = std::move(one);
            else grade::merge_submission(all, std::move(one));
        }
        grade::grade_options g;  // no secret, no student: the practice variant, always
        g.student = "";
        grade::submission anon = std::move(all);
        anon.student.clear();  // practice numbers are the same for everyone
        const grade::grade_report r = grade::grade_submission(anon, set, g);
        if (r.gradable && r.exercises.empty()) {  // nothing known answered: the file's problem, not "Total 0 / 0"
            std::string why;
            for (const auto& n : r.notes) why += "\n  " + n;
            throw attn::error("no-answers", attn::source_pos{o->answer_files.front()},
                              "expected answers to exercises of the lessons (tables named by exercise id, e.g. "
                              "[04-weights]; `attn exercise list` shows them), found none" + why);
        }
        print_fitted("Practice check (the practice variant, not a class's numbers)\n" + grade::report_text(r),
                     make_style(*check_layout));
        record_progress(r);
        if (!r.full_marks()) throw exit_request{1};
    });
}

}  // namespace attn::cli
