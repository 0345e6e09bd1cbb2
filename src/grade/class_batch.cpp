// grade/class_batch.cpp — see class_batch.hpp.
#include "grade/class_batch.hpp"

#include <algorithm>
#include <filesystem>
#include <future>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "grade/variant_space.hpp"
#include "io/csv_cell.hpp"
#include "io/shown_text.hpp"

namespace attn::grade {

namespace fs = std::filesystem;

void make_paths_relative(grade_report& r, const std::string& dir) {
    for (auto& f : r.files) f = io::shown_relative(f, dir);
    io::strip_folder(r.reason, dir);
    for (auto& n : r.notes) io::strip_folder(n, dir);
    for (auto& x : r.exercises)
        for (auto& p : x.parts) {
            for (auto& piece : p.feedback.pieces) io::strip_folder(piece.text, dir);
            io::strip_folder(p.where.file, dir, /*leading_only=*/true);
        }
}

namespace {

// A file whose name normalises to no id ("   .toml") is listed under this mark and its
// shown name: a row of its own, not gradable, never a student's numbers.
const std::string unnamed_mark = "(no id) ";

struct entry {
    std::string student;  // normalised
    std::string path;
    std::string name;     // as listed
};

// The folder's entries by student, in about 70 bytes each (paths and shown names made when read).
struct roster {
    std::string dir;
    std::vector<std::string> ids;      // [students] normalised, in id order
    std::vector<std::uint32_t> first;  // [students + 1] each student's first entry in files
    std::vector<std::string> files;    // [entries] file or folder names in the folder
    std::vector<entry> of(std::size_t s) const {
        std::vector<entry> out;
        for (std::size_t f = first[s]; f < first[s + 1]; ++f)
            out.push_back({ids[s], (fs::path(dir) / files[f]).string(), io::printable_name(files[f])});
        return out;
    }
};

// The one-submission guess "ID: … (someone else's numbers?)" of each exercise a copy
// match explains (grader.cpp writes it without a class to compare with).
void drop_guesses(std::vector<std::string>& flags, const std::vector<std::string>& exercises) {
    const auto guess = [&](const std::string& f) {
        return f.find("(someone else's numbers?)") != std::string::npos &&
               std::any_of(exercises.begin(), exercises.end(), [&](const std::string& id) { return f.rfind(id + ": ", 0) == 0; });
    };
    flags.erase(std::remove_if(flags.begin(), flags.end(), guess), flags.end());
}

submission read_entry(const entry& en, const read_limits& limits) {
    std::error_code ec;
    const auto st = fs::symlink_status(en.path, ec);
    if (fs::is_symlink(st))
        throw submission_error("unreadable", {en.name, 0, 0}, en.name + ": a symbolic link; submissions must be plain files or folders");
    if (!fs::is_directory(st) && !fs::is_regular_file(st))
        throw submission_error("unreadable", {en.name, 0, 0}, en.name + ": not a file or a folder");
    return read_submission_path(en.path, limits);
}

void tally(class_result& out, std::map<std::string, misconception>& mistakes, const grade_report& r) {
    ++out.students;
    if (r.gradable) ++out.graded;
    else out.not_gradable.push_back({r.student, r.reason_word + ": " + r.reason});
    out.score_sum += r.score;
    if (r.late && r.late->periods > 0) {
        ++out.late;
        out.late_points += r.late->deduction;
    }
    out.max = std::max(out.max, r.max);
    out.all_full = out.all_full && r.full_marks();
    std::set<std::string> mine;
    for (const auto& x : r.exercises)
        for (const auto& p : x.parts)
            if (!p.mistake.empty()) {
                auto& m = mistakes[p.mistake];
                m.id = p.mistake;
                m.name = p.mistake_name;
                ++m.parts;
                ++m.by_exercise[x.id];
                mine.insert(p.mistake);
            }
    for (const auto& id : mine) ++mistakes[id].students;
}

// Every entry of the folder, grouped by the student id its name normalises to (ana.toml,
// "ANA .toml" and ana/ are one student), in id order, each group in name order.
roster list_students(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw attn::error(dir + ": not a folder (--class takes the folder of submissions)");
    std::vector<entry> entries;  // path holds the bare name here: the submissions are read one at a time later
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::string name = e.path().filename().string();
        if (name.empty() || name[0] == '.') continue;
        const std::string id = fs::is_directory(e.symlink_status(ec)) ? name : e.path().stem().string();
        std::string student = normalize_student_id(io::printable_name(id));
        if (student.empty()) student = unnamed_mark + io::printable_name(name);  // one row of its own, refused (grade_entry)
        entries.push_back({std::move(student), name, io::printable_name(name)});
    }
    if (ec) throw attn::error(dir + ": cannot list the folder (" + ec.message() + ")");
    std::sort(entries.begin(), entries.end(),
              [](const entry& a, const entry& b) { return a.student != b.student ? a.student < b.student : a.name < b.name; });
    roster r{dir, {}, {}, {}};
    r.files.reserve(entries.size());
    for (auto& en : entries) {
        if (r.ids.empty() || r.ids.back() != en.student) {
            r.ids.push_back(std::move(en.student));
            r.first.push_back(static_cast<std::uint32_t>(r.files.size()));
        }
        r.files.push_back(std::move(en.path));
    }
    r.first.push_back(static_cast<std::uint32_t>(r.files.size()));
    return r;
}

// Every exercise anyone answered, in lesson order (a first, light pass).
std::vector<std::string> answered_exercises(const roster& students, const exercise_set& set, const read_limits& limits) {
    std::set<std::string> answered;
    for (std::size_t s = 0; s < students.ids.size(); ++s)
        for (const auto& en : students.of(s)) {
            try {
                for (const auto& [id, v] : read_entry(en, limits).answers) answered.insert(id);
            } catch (const std::exception&) {  // reported in the real pass
            }
        }
    std::vector<std::string> out;
    for (const auto& x : set.all)
        if (answered.count(x.id)) out.push_back(x.id);
    return out;
}

struct graded {
    grade_report report;
    std::optional<submission> sub;  // the file that counted, when it could be read
    std::string several;            // "2 files for this student: …" ("" for one)
};

// One file or folder of a student: read, graded; any problem of the submission ends in
// the report (variant_error is the teacher's setup and goes up).
graded grade_entry(const entry& en, const exercise_set& set, grade_options per, const read_limits& limits) {
    graded g;
    per.student = en.student;  // the file's name is who it is, whatever the file says
    auto refuse = [&](const error& why) { g.report = not_gradable(en.student, en.path, why, set, per); };
    try {
        if (en.student.rfind(unnamed_mark, 0) == 0)
            throw submission_error("file name", {en.name, 0, 0},
                                   "'" + en.name + "': the name before the extension is blank, so it names no student; "
                                   "rename it to the student's id (ana.toml)");
        g.sub = read_entry(en, limits);
    } catch (const error& err) {  // the submission's problem (io::input_error, submission_error ...)
        refuse(err);
    } catch (const std::exception& err) {  // a filesystem surprise: still one row
        refuse(submission_error("unreadable", {en.name, 0, 0}, en.name + ": " + err.what()));
    }
    try {
        if (g.sub) g.report = grade_submission(*g.sub, set, per);
    } catch (const variant_error&) {
        throw;
    } catch (const std::exception& err) {
        refuse(submission_error("internal", {en.path, 0, 0}, en.path + ": " + err.what()));
    }
    if (!g.report.gradable) g.sub.reset();
    g.report.student = en.student;
    return g;
}

// A student with several files (names that normalise alike, a file and a folder): each is
// graded, the best gradable one counts (a broken or planted file under someone's name
// never costs them), and the teacher is told which counted and what the others were.
graded grade_student(const std::vector<entry>& files, const exercise_set& set, const grade_options& per,
                     const read_limits& limits, const std::string& dir) {
    std::vector<graded> all;
    for (const auto& en : files) {
        all.push_back(grade_entry(en, set, per, limits));
        make_paths_relative(all.back().report, dir);
    }
    if (all.size() == 1) return std::move(all.front());
    std::size_t best = 0;
    for (std::size_t i = 1; i < all.size(); ++i)
        if (better_report(all[i].report, all[best].report)) best = i;
    std::string list;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto& r = all[i].report;
        list += std::string(list.empty() ? "" : ", ") + "'" + files[i].name + "' (" +
                (i == best ? "counted, " : "not counted, ") +
                (r.gradable ? points_str(r.score) + "/" + points_str(r.max) : "not gradable: " + r.reason_word) + ")";
    }
    graded out = std::move(all[best]);
    out.several = io::capped_text(std::to_string(files.size()) + " files for this student: " + list, 4 * max_note_bytes);
    out.report.flags.insert(out.report.flags.begin(), out.several);
    return out;
}

// Every student's variant of each varied exercise, checked once for the whole run, on
// every core: the grading and the copy check then replay the draws (variant.hpp), and the
// copy index takes each student's right answers from the numbers checked here.
void learn_variants(variant_memo& memo, copy_finder& copies, const exercise_set& set, const grade_options& o,
                    const std::vector<std::string>& students) {
    if (!o.lesson_numbers && !o.secret.empty())  // grade never sets o.seed: the numbers learnt are the ones graded
        for (const auto& id : o.exercise_ids) {
            const exercise* x = set.find(id);
            if (!x || !x->variant.enabled) continue;
            variant_memo::learnt_numbers index;
            if (copies.indexes(*x)) index = [&](std::size_t i, const exercise_numbers& n) { copies.index(*x, i, n); };
            memo.learn(*x, o.secret, students, index);
        }
    copies.seal();
}

}  // namespace

class_result grade_class(const std::string& dir, const exercise_set& set, const grade_options& options,
                         const read_limits& limits, const report_sink& each) {
    const roster students = list_students(dir);
    class_result out;
    out.exercise_ids = options.exercise_ids.empty() ? answered_exercises(students, set, limits) : options.exercise_ids;
    for (const auto& id : out.exercise_ids)
        if (!set.find(id)) throw attn::error("no exercise '" + id + "' (`attn exercise list` shows them)");
    if (!options.lesson_numbers && !options.small_variant_space_ok) {  // before any work: the class's size decides
        std::vector<const exercise*> xs;
        for (const auto& id : out.exercise_ids) xs.push_back(set.find(id));
        check_variant_spaces(xs, students.ids.size(), "--small-variant-space-ok");
    }

    grade_options per = options;
    per.exercise_ids = out.exercise_ids;
    variant_memo memo;  // outlives every use of per
    per.memo = &memo;   // found empty for an exercise until learnt: its draws are then checked as usual
    copy_finder copies(set, per, students.ids);
    learn_variants(memo, copies, set, per, students.ids);
    std::map<std::string, misconception> mistakes;  // by id, while the class is graded
    // Graded on every core a batch at a time, the next batch while this one's copies,
    // tallies and reports go out in id order (one thread), so the output is the same
    // whatever the number of threads and no core waits for that serial part.
    const std::size_t threads = threads_from_env("ATTN_GRADE_THREADS");
    const std::size_t batch = 64 * threads, total = students.ids.size();
    auto launch = [&](std::size_t start) {  // students [start, start + batch), graded on every core
        return std::async(std::launch::async, [&, start] {
            std::vector<graded> done(std::min(batch, total - start));
            parallel_for(done.size(), threads, [&](std::size_t i) { done[i] = grade_student(students.of(start + i), set, per, limits, dir); });
            return done;
        });
    };
    std::future<std::vector<graded>> next;
    if (total > 0) next = launch(0);
    for (std::size_t start = 0; start < total; start += batch) {
        std::vector<graded> done = next.get();
        if (start + batch < total) next = launch(start + batch);
        for (std::size_t i = 0; i < done.size(); ++i) {
            grade_report& r = done[i].report;
            if (done[i].sub)
                if (const auto m = copies.check(start + i, r, *done[i].sub)) {
                    drop_guesses(r.flags, m->exercises);  // the source is known: no "someone else's numbers?" left
                    r.flags.push_back(copy_finder::flag(*m));
                    out.copies.push_back({r.student, r.flags.back()});
                }
            if (!done[i].several.empty()) out.several_files.push_back({r.student, done[i].several});
            tally(out, mistakes, r);
            each(r);
        }
    }
    for (auto& [id, m] : mistakes) out.histogram.push_back(std::move(m));
    std::stable_sort(out.histogram.begin(), out.histogram.end(), [](const auto& a, const auto& b) { return a.parts > b.parts; });
    return out;
}

std::string gradebook_header(const std::vector<std::string>& exercise_ids, bool late) {
    std::string out = "student";
    for (const auto& id : exercise_ids) out += "," + io::csv_text_cell(id);
    return out + ",total,max,percent,status,reason,mistakes,variant,notes" + (late ? ",before_late,hours_late,late_deduction" : "") + "\n";
}

std::string gradebook_row(const grade_report& r, const std::vector<std::string>& exercise_ids, bool late) {
    std::string out = io::csv_text_cell(r.student);
    for (const auto& id : exercise_ids) {
        std::string cell = "0";
        for (const auto& x : r.exercises)
            if (x.id == id) cell = points_str(x.score);
        out += "," + cell;
    }
    const double pct = r.max > 0 ? 100.0 * r.score / r.max : 0.0;
    const std::string mistakes = fmt::format("{}", fmt::join(r.mistake_ids(), " "));
    const std::string notes = fmt::format("{}", fmt::join(r.flags, "; "));
    std::string variants;
    for (const auto& x : r.exercises)
        if (x.personal && !x.variant.empty()) variants += (variants.empty() ? "" : " ") + x.id + ":" + x.variant;
    const std::string reason = r.gradable ? "" : r.reason_word + ": " + r.reason;
    for (const std::string& cell : {points_str(r.score), points_str(r.max), fmt::format("{:.1f}", pct),
                                    std::string(r.gradable ? "graded" : "not gradable"), io::csv_text_cell(reason),
                                    io::csv_text_cell(mistakes), io::csv_text_cell(variants), io::csv_text_cell(notes)})
        out += "," + cell;
    if (late)  // empty cells: not gradable, or no submission time
        out += r.late ? "," + points_str(r.late->before) + "," + fmt::format("{:.2f}", r.late->hours) + "," + points_str(r.late->deduction) : ",,,";
    return out + "\n";
}

std::string histogram_csv(const class_result& c) {
    std::string out = "mistake,name,parts,students,by_exercise\n";
    for (const auto& m : c.histogram) {
        std::string by;
        for (const auto& [ex, n] : m.by_exercise) by += (by.empty() ? "" : " ") + ex + ":" + std::to_string(n);
        out += io::csv_text_cell(m.id) + "," + io::csv_text_cell(m.name) + "," + std::to_string(m.parts) + "," +
               std::to_string(m.students) + "," + io::csv_text_cell(by) + "\n";
    }
    return out;
}

}  // namespace attn::grade
