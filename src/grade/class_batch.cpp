// grade/class_batch.cpp — see class_batch.hpp.
#include "grade/class_batch.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "grade/answer_matrix.hpp"
#include "grade/grade_parts.hpp"

#include <fmt/format.h>

#include "grade/report_format.hpp"
#include "io/csv_cell.hpp"
#include "io/terminal_safe.hpp"
#include "trace/text_width.hpp"

namespace attn::grade {

namespace fs = std::filesystem;

namespace {

// A file name shown in a report: relative to the class folder; bytes that are not
// UTF-8 become \xNN so the CSV and the terminal stay valid text.
std::string printable(const std::string& s) {
    if (valid_utf8(s)) return s;
    std::string out;
    for (unsigned char c : s) {
        if (c < 0x80) out += static_cast<char>(c);
        else out += fmt::format("\\x{:02x}", c);
    }
    return out;
}

std::string relative_to(const std::string& path, const std::string& dir) {
    std::error_code ec;
    const auto rel = fs::relative(path, dir, ec);
    return printable(ec || rel.empty() ? path : rel.string());
}

}  // namespace

void make_paths_relative(grade_report& r, const std::string& dir) {
    for (auto& f : r.files) f = relative_to(f, dir);
    std::string base = dir;
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    const std::string prefix = base + "/";
    auto strip = [&](std::string& s) {
        for (std::size_t at; (at = s.find(prefix)) != std::string::npos;) s.erase(at, prefix.size());
    };
    strip(r.reason);
    for (auto& n : r.notes) strip(n);
    for (auto& x : r.exercises)
        for (auto& p : x.parts) {
            strip(p.feedback);
            if (p.where.file.rfind(prefix, 0) == 0) p.where.file.erase(0, prefix.size());
        }
}

namespace {

// A text cell: never a formula (io::spreadsheet_safe: = + - @ TAB CR), never a control
// character (the gradebook may go to a terminal with --gradebook -).
std::string csv_cell(const std::string& raw) { return io::csv_text_cell(raw); }

struct entry {
    std::string student;  // normalised
    std::string path;
    std::string name;     // as listed
};

// Every student's expected answers, hashed coarsely per (exercise, part) so a wrong
// answer can be looked up among the class's numbers; a hit is confirmed by recomputing
// that student's part within the tolerance (no false "copy" from the coarse hash).
class copy_index {
public:
    copy_index(const exercise_set& set, const std::vector<std::string>& ids, const grade_options& o,
               const std::vector<entry>& students)
        : options_(o) {
        for (const auto& id : ids)
            if (const exercise* x = set.find(id);
                x && x->kind == exercise_kind::numeric && x->variant.enabled && !x->setup.student_inputs && !o.lesson_numbers)
                xs_.push_back(x);
        for (std::size_t i = 0; i < students.size(); ++i) {
            names_.push_back(students[i].student);
            for (const exercise* x : xs_) {
                const stage_values right = compute_correct(numbers_of(*x, students[i].student).inputs);
                for (const auto& p : x->parts)
                    if (auto m = select_stage(right, p.stage, p.rows, p.cols)) index_.emplace(key(x->id, p.id, *m), i);
            }
        }
    }

    // "matches the numbers of student X" when every answered part of one exercise (two
    // parts at least, or six numbers) is right, within the tolerance, for student X's
    // numbers and not for r's own: single parts of halves collide by chance in a large
    // class, whole exercises do not.
    std::vector<std::string> matches(const grade_report& r, const submission& sub) const {
        std::vector<std::string> out;
        for (const exercise* x : xs_) {
            const answer_value* a = sub.find(x->id);
            const exercise_result* er = nullptr;
            for (const auto& e : r.exercises) er = e.id == x->id ? &e : er;
            if (!a || !er || er->score >= er->max - 1e-9) continue;
            std::optional<std::set<std::size_t>> common;  // students matching every answered part so far
            std::size_t parts = 0, numbers = 0;
            for (const auto& p : x->parts) {
                const answer_value* pa = part_answer(*x, p, a);
                if (!pa || is_unanswered(pa)) continue;
                const read_result rr = read_matrix(*pa);
                if (!rr.m) continue;
                ++parts;
                numbers += rr.m->size();
                std::set<std::size_t> here;
                auto [lo, hi] = index_.equal_range(key(x->id, p.id, *rr.m));
                std::size_t tried = 0;
                for (auto it = lo; it != hi && tried < 16; ++it, ++tried) {  // a crowded bucket is a constant answer, not a copy
                    const std::string& other = names_[it->second];
                    if (other == r.student || (common && !common->count(it->second))) continue;
                    const auto m = select_stage(compute_correct(numbers_of(*x, other).inputs), p.stage, p.rows, p.cols);
                    if (!m) continue;
                    const matrix got = conform(*rr.m, *m);
                    if (got.shape() == m->shape() && all_close(got, *m, p.tol)) here.insert(it->second);
                }
                common = common ? [&] {
                    std::set<std::size_t> both;
                    for (auto i : here)
                        if (common->count(i)) both.insert(i);
                    return both;
                }()
                                : here;
                if (common->empty()) break;
            }
            if (!common || common->empty() || (parts < 2 && numbers < 6)) continue;
            const std::string f = "matches the numbers of student " + names_[*common->begin()] + " (" + x->id + ")";
            out.push_back(f);
        }
        return out;
    }

private:
    exercise_numbers numbers_of(const exercise& x, const std::string& student) const {
        variant_request req;
        req.student = student;
        req.secret = options_.secret;
        req.practice_ok = false;
        return numbers_for(x, req);
    }
    static std::uint64_t key(const std::string& ex, const std::string& part, const matrix& m) {
        std::uint64_t h = std::hash<std::string>{}(ex + "\x1f" + part) ^ (m.size() * 0x9E3779B97F4A7C15ULL);
        for (double e : m) {  // to 0.05: answers within the tolerance land together (almost always; confirmed after)
            const double c = std::isfinite(e) ? std::round(e * 20.0) : (e > 0 ? 1e18 : -1e18);
            h = (h * 1099511628211ULL) ^ std::hash<double>{}(c + 0.0);
        }
        return h;
    }
    grade_options options_;
    std::vector<const exercise*> xs_;
    std::vector<std::string> names_;
    std::unordered_multimap<std::uint64_t, std::size_t> index_;
};

submission read_entry(const entry& en, const read_limits& limits) {
    std::error_code ec;
    const auto st = fs::symlink_status(en.path, ec);
    if (fs::is_symlink(st))
        throw submission_error("unreadable", {en.name, 0, 0}, en.name + ": a symbolic link; submissions must be plain files or folders");
    if (!fs::is_directory(st) && !fs::is_regular_file(st))
        throw submission_error("unreadable", {en.name, 0, 0}, en.name + ": not a file or a folder");
    return read_submission_path(en.path, limits);
}

void tally(class_result& out, const grade_report& r) {
    ++out.students;
    if (r.gradable) ++out.graded;
    else out.not_gradable.push_back({r.student, r.reason_word + ": " + r.reason});
    out.score_sum += r.score;
    out.max = std::max(out.max, r.max);
    out.all_full = out.all_full && r.full_marks();
    std::set<std::string> mine;
    for (const auto& x : r.exercises)
        for (const auto& p : x.parts)
            if (!p.mistake.empty()) {
                auto& m = out.mistakes[p.mistake];
                m.id = p.mistake;
                m.name = p.mistake_name;
                ++m.parts;
                ++m.by_exercise[x.id];
                mine.insert(p.mistake);
            }
    for (const auto& id : mine) ++out.mistakes[id].students;
    bool copy = false;
    for (const auto& f : r.flags) copy = copy || f.rfind("matches the numbers of student", 0) == 0;
    out.copies += copy ? 1 : 0;
}

}  // namespace

class_result grade_class(const std::string& dir, const exercise_set& set, const grade_options& options,
                         const read_limits& limits, const report_sink& each) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw std::invalid_argument(dir + ": not a folder (--class takes the folder of submissions)");
    std::vector<entry> entries;  // names only: the submissions are read one at a time below
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name[0] == '.') continue;
        const auto st = e.symlink_status(ec);
        const std::string id = fs::is_directory(st) ? name : e.path().stem().string();
        entries.push_back({normalize_student_id(printable(id)), e.path().string(), printable(name)});
    }
    if (ec) throw std::invalid_argument(dir + ": cannot list the folder (" + ec.message() + ")");
    std::sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) { return a.student < b.student; });

    class_result out;
    out.exercise_ids = options.exercise_ids;
    if (out.exercise_ids.empty()) {  // every exercise anyone answered, in lesson order (a first, light pass)
        std::set<std::string> answered;
        for (const auto& en : entries) {
            try {
                for (const auto& [id, v] : read_entry(en, limits).answers) answered.insert(id);
            } catch (const std::exception&) {  // reported in the real pass
            }
        }
        for (const auto& x : set.all)
            if (answered.count(x.id)) out.exercise_ids.push_back(x.id);
    }
    for (const auto& id : out.exercise_ids)
        if (!set.find(id)) throw std::invalid_argument("no exercise '" + id + "' (`attn exercise list` shows them)");

    grade_options per = options;
    per.exercise_ids = out.exercise_ids;
    const copy_index copies(set, out.exercise_ids, options, entries);
    for (const auto& en : entries) {
        grade_report r;
        try {
            const submission sub = read_entry(en, limits);
            per.student = en.student;  // the file's name is who it is, whatever the file says
            try {
                r = grade_submission(sub, set, per);
                for (auto& f : copies.matches(r, sub)) r.flags.push_back(std::move(f));
            } catch (const variant_error&) {
                throw;  // the teacher's setup, not the student's submission
            } catch (const std::exception& err) {
                r = not_gradable(en.student, en.path, submission_error("internal", {en.path, 0, 0}, en.path + ": " + err.what()),
                                 set, out.exercise_ids, per);
            }
        } catch (const submission_error& err) {
            r = not_gradable(en.student, en.path, err, set, out.exercise_ids, per);
        } catch (const variant_error&) {
            throw;
        } catch (const std::exception& err) {  // a filesystem surprise: still one row
            r = not_gradable(en.student, en.path, submission_error("unreadable", {en.name, 0, 0}, en.name + ": " + err.what()),
                             set, out.exercise_ids, per);
        }
        r.student = en.student;
        make_paths_relative(r, dir);
        tally(out, r);
        each(r);
    }
    return out;
}

std::vector<misconception> misconception_histogram(const class_result& c) {
    std::vector<misconception> out;
    for (const auto& [id, m] : c.mistakes) out.push_back(m);
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.parts > b.parts; });
    return out;
}

std::string gradebook_header(const std::vector<std::string>& exercise_ids) {
    std::string out = "student";
    for (const auto& id : exercise_ids) out += "," + csv_cell(id);
    return out + ",total,max,percent,status,reason,mistakes,variant,notes\n";
}

std::string gradebook_row(const grade_report& r, const std::vector<std::string>& exercise_ids) {
    std::string out = csv_cell(r.student);
    for (const auto& id : exercise_ids) {
        std::string cell = "0";
        for (const auto& x : r.exercises)
            if (x.id == id) cell = points_str(x.score);
        out += "," + cell;
    }
    const double pct = r.max > 0 ? 100.0 * r.score / r.max : 0.0;
    std::string mistakes, variants, notes;
    for (const auto& m : r.mistake_ids()) mistakes += (mistakes.empty() ? "" : " ") + m;
    for (const auto& x : r.exercises)
        if (x.personal && !x.variant.empty()) variants += (variants.empty() ? "" : " ") + x.id + ":" + x.variant;
    for (const auto& f : r.flags) notes += (notes.empty() ? "" : "; ") + f;
    return out + "," + points_str(r.score) + "," + points_str(r.max) + "," + fmt::format("{:.1f}", pct) + "," +
           (r.gradable ? "graded" : "not gradable") + "," + csv_cell(r.gradable ? "" : r.reason_word + ": " + r.reason) + "," +
           csv_cell(mistakes) + "," + csv_cell(variants) + "," + csv_cell(notes) + "\n";
}

std::string histogram_csv(const class_result& c) {
    std::string out = "mistake,name,parts,students,by_exercise\n";
    for (const auto& m : misconception_histogram(c)) {
        std::string by;
        for (const auto& [ex, n] : m.by_exercise) by += (by.empty() ? "" : " ") + ex + ":" + std::to_string(n);
        out += csv_cell(m.id) + "," + csv_cell(m.name) + "," + std::to_string(m.parts) + "," + std::to_string(m.students) + "," +
               csv_cell(by) + "\n";
    }
    return out;
}

std::string class_summary_text(const class_result& c) {
    std::string out = fmt::format("Class: {} submissions, {} graded, {} not gradable\n", c.students, c.graded, c.students - c.graded);
    std::string ids;
    for (const auto& id : c.exercise_ids) ids += (ids.empty() ? "" : ", ") + id;
    out += "Exercises: " + (ids.empty() ? std::string("none") : ids) + "\n";
    if (c.students)
        out += "Mean score: " + points_str(c.score_sum / static_cast<double>(c.students)) + " / " + points_str(c.max) + "\n";
    const auto hist = misconception_histogram(c);
    out += "\nMisconceptions (wrong parts that match a known mistake):\n";
    if (hist.empty()) out += "  none recognised\n";
    std::size_t top = hist.empty() ? 1 : hist.front().parts;
    std::size_t w = 10;
    for (const auto& m : hist) w = std::max(w, trace::display_width(m.name));
    for (const auto& m : hist) {
        const std::size_t bar = (m.parts * 30 + top - 1) / top;
        out += "  " + m.name + std::string(w - trace::display_width(m.name), ' ') +
               fmt::format("  {:>4} {:<5}  {:>4} {:<8}  {}\n", m.parts, m.parts == 1 ? "part" : "parts", m.students,
                           m.students == 1 ? "student" : "students", std::string(bar, '#'));
        for (const auto& [ex, n] : m.by_exercise)
            out += fmt::format("      {:<{}}  {:>4} {}\n", ex, w - 4, n, n == 1 ? "part" : "parts");
    }
    if (c.copies) out += fmt::format("\nCopies: {} student(s) hand in answers that match another student's numbers (gradebook notes)\n", c.copies);
    if (!c.not_gradable.empty()) out += "\nNot gradable:\n";
    for (const auto& [student, why] : c.not_gradable) out += "  " + terminal_visible(student) + "  " + terminal_visible(why) + "\n";
    return out;
}

nlohmann::json histogram_json(const class_result& c) {
    nlohmann::json h = nlohmann::json::array();
    for (const auto& m : misconception_histogram(c))
        h.push_back({{"id", m.id}, {"name", m.name}, {"parts", m.parts}, {"students", m.students}, {"by_exercise", m.by_exercise}});
    return h;
}

}  // namespace attn::grade
