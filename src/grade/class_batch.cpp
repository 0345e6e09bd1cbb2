// grade/class_batch.cpp — see class_batch.hpp.
#include "grade/class_batch.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "grade/report_format.hpp"
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

std::string csv_cell(const std::string& raw) {
    std::string s = raw;
    if (!s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@')) s = "'" + s;
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

struct entry {
    std::string student;
    std::string path;
    std::optional<submission> sub;
    std::optional<submission_error> error;
};

}  // namespace

class_result grade_class(const std::string& dir, const exercise_set& set, const grade_options& options,
                         const read_limits& limits) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw std::invalid_argument(dir + ": not a folder (--class takes the folder of submissions)");
    std::vector<entry> entries;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name[0] == '.') continue;
        entry en;
        en.path = e.path().string();
        const auto st = e.symlink_status(ec);
        en.student = fs::is_directory(st) ? name : e.path().stem().string();
        en.student = printable(en.student);
        try {
            if (fs::is_symlink(st))
                throw submission_error("unreadable", {name, 0, 0}, name + ": a symbolic link; submissions must be plain files or folders");
            if (!fs::is_directory(st) && !fs::is_regular_file(st))
                throw submission_error("unreadable", {name, 0, 0}, name + ": not a file or a folder");
            en.sub = read_submission_path(en.path, limits);
        } catch (const submission_error& err) {
            en.error = err;
        } catch (const std::exception& err) {  // a filesystem surprise: still one row
            en.error = submission_error("unreadable", {name, 0, 0}, name + ": " + err.what());
        }
        entries.push_back(std::move(en));
    }
    if (ec) throw std::invalid_argument(dir + ": cannot list the folder (" + ec.message() + ")");
    std::sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) { return a.student < b.student; });

    class_result out;
    out.exercise_ids = options.exercise_ids;
    if (out.exercise_ids.empty()) {  // every exercise anyone answered, in lesson order
        std::set<std::string> answered;
        for (const auto& en : entries)
            if (en.sub)
                for (const auto& [id, v] : en.sub->answers) answered.insert(id);
        for (const auto& x : set.all)
            if (answered.count(x.id)) out.exercise_ids.push_back(x.id);
    }
    for (const auto& id : out.exercise_ids)
        if (!set.find(id)) throw std::invalid_argument("no exercise '" + id + "' (`attn exercise list` shows them)");

    grade_options per = options;
    per.exercise_ids = out.exercise_ids;
    for (auto& en : entries) {
        grade_report r;
        if (en.sub) {
            per.student = en.student;  // the folder's name is who it is, whatever the file says
            try {
                r = grade_submission(*en.sub, set, per);
            } catch (const variant_error&) {
                throw;  // the teacher's setup, not the student's submission
            } catch (const std::exception& err) {
                r = not_gradable(en.student, en.path, submission_error("internal", {en.path, 0, 0}, en.path + ": " + err.what()),
                                 set, out.exercise_ids);
            }
        } else {
            r = not_gradable(en.student, en.path, *en.error, set, out.exercise_ids);
        }
        r.student = normalize_student_id(en.student);
        make_paths_relative(r, dir);
        out.reports.push_back(std::move(r));
    }
    return out;
}

std::vector<misconception> misconception_histogram(const class_result& c) {
    std::map<std::string, misconception> by_id;
    for (const auto& r : c.reports) {
        std::set<std::string> mine;
        for (const auto& x : r.exercises)
            for (const auto& p : x.parts)
                if (!p.mistake.empty()) {
                    auto& m = by_id[p.mistake];
                    m.id = p.mistake;
                    m.name = p.mistake_name;
                    ++m.parts;
                    mine.insert(p.mistake);
                }
        for (const auto& id : mine) ++by_id[id].students;
    }
    std::vector<misconception> out;
    for (auto& [id, m] : by_id) out.push_back(m);
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.parts > b.parts; });
    return out;
}

std::string gradebook_csv(const class_result& c) {
    std::string out = "student";
    for (const auto& id : c.exercise_ids) out += "," + csv_cell(id);
    out += ",total,max,percent,status,reason,mistakes\n";
    for (const auto& r : c.reports) {
        out += csv_cell(r.student);
        for (const auto& id : c.exercise_ids) {
            std::string cell = "0";
            for (const auto& x : r.exercises)
                if (x.id == id) cell = points_str(x.score);
            out += "," + cell;
        }
        const double pct = r.max > 0 ? 100.0 * r.score / r.max : 0.0;
        std::string mistakes;
        for (const auto& m : r.mistake_ids()) mistakes += (mistakes.empty() ? "" : " ") + m;
        out += "," + points_str(r.score) + "," + points_str(r.max) + "," + fmt::format("{:.1f}", pct) + "," +
               (r.gradable ? "graded" : "not gradable") + "," + csv_cell(r.gradable ? "" : r.reason_word + ": " + r.reason) +
               "," + csv_cell(mistakes) + "\n";
    }
    return out;
}

std::string histogram_csv(const class_result& c) {
    std::string out = "mistake,name,parts,students\n";
    for (const auto& m : misconception_histogram(c))
        out += csv_cell(m.id) + "," + csv_cell(m.name) + "," + std::to_string(m.parts) + "," + std::to_string(m.students) + "\n";
    return out;
}

std::string class_summary_text(const class_result& c) {
    std::size_t graded = 0;
    double sum = 0.0, max = 0.0;
    for (const auto& r : c.reports) {
        if (r.gradable) ++graded;
        sum += r.score;
        max = std::max(max, r.max);
    }
    std::string out = fmt::format("Class: {} submissions, {} graded, {} not gradable\n", c.reports.size(), graded,
                                  c.reports.size() - graded);
    std::string ids;
    for (const auto& id : c.exercise_ids) ids += (ids.empty() ? "" : ", ") + id;
    out += "Exercises: " + (ids.empty() ? std::string("none") : ids) + "\n";
    if (!c.reports.empty())
        out += "Mean score: " + points_str(sum / static_cast<double>(c.reports.size())) + " / " + points_str(max) + "\n";
    const auto hist = misconception_histogram(c);
    out += "\nMisconceptions (wrong parts that match a known mistake):\n";
    if (hist.empty()) out += "  none recognised\n";
    std::size_t top = hist.empty() ? 1 : hist.front().parts;
    std::size_t w = 10;
    for (const auto& m : hist) w = std::max(w, trace::display_width(m.name));
    for (const auto& m : hist) {
        const std::size_t bar = (m.parts * 30 + top - 1) / top;
        out += "  " + m.name + std::string(w - trace::display_width(m.name), ' ') +
               fmt::format("  {:>4} parts  {:>4} students  {}\n", m.parts, m.students, std::string(bar, '#'));
    }
    bool any = false;
    for (const auto& r : c.reports)
        if (!r.gradable) {
            if (!any) out += "\nNot gradable:\n";
            any = true;
            out += "  " + r.student + "  " + r.reason_word + ": " + r.reason + "\n";
        }
    return out;
}

nlohmann::json class_json(const class_result& c) {
    nlohmann::json j;
    j["exercises"] = c.exercise_ids;
    j["students"] = nlohmann::json::array();
    for (const auto& r : c.reports) j["students"].push_back(report_json(r));
    j["histogram"] = nlohmann::json::array();
    for (const auto& m : misconception_histogram(c))
        j["histogram"].push_back({{"id", m.id}, {"name", m.name}, {"parts", m.parts}, {"students", m.students}});
    return j;
}

}  // namespace attn::grade
