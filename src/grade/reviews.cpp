// grade/reviews.cpp — see reviews.hpp: the review sheet (CSV, RFC 4180) written and
// read back, and the grading of open parts against it.
#include "grade/reviews.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "core/keyed_hash.hpp"
#include "grade/grader.hpp"
#include "grade/submission.hpp"
#include "grade/variant.hpp"
#include "io/csv_cell.hpp"
#include "io/csv_rows.hpp"
#include "io/input_read.hpp"
#include "io/size_budget.hpp"
#include "io/shown_text.hpp"
#include "io/terminal_safe.hpp"
#include "io/utf8.hpp"

namespace attn::grade {

namespace {

// The cell as found, in words when it spells a non-finite value (never the letters nan).
std::string found_points(const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() && !std::isfinite(v)) return "a non-finite value (not-a-number or infinity)";
    return "'" + io::terminal_safe(text) + "'";
}

const char* const sheet_columns = "student,exercise,part,max,points,comment,answer,rubric";  // read back by name

const part_spec* open_part_of(const exercise_set& set, const std::string& ex, const std::string& part) {
    const exercise* x = set.find(ex);
    if (!x || !x->kind->reviewed) return nullptr;
    return x->find_part(part);
}

// An answer as the sheet shows it: itself, or past max_cell_bytes its start and a
// content hash ("… [answer of 40000 bytes, hash 7Q2K…]"), so a long answer's review
// still matches that very answer (and no other) when the sheet comes back.
std::string sheet_answer(const std::string& answer) {
    if (answer.size() <= max_cell_bytes) return answer;
    const std::string hash = base32(keyed_hash(course_key("attn review sheet"), {"attn-open-answer-v1", answer}, 20), 32);
    const std::string tail = " [answer of " + std::to_string(answer.size()) + " bytes, hash " + hash + "]";
    return io::capped_text(answer, max_cell_bytes - tail.size() - 40) + tail;  // 40: capped_text's own " … [N more bytes cut]"
}

}  // namespace

std::string review_sheet_header() { return std::string(sheet_columns) + "\n"; }

std::string review_sheet_rows(const grade_report& r, const exercise_set& set) {
    std::string out;
    for (const auto& x : r.exercises) {
        if (x.kind != open_kind.name) continue;
        const exercise* spec = set.find(x.id);
        for (const auto& p : x.parts) {
            const part_spec* ps = spec ? spec->find_part(p.id) : nullptr;
            const bool reviewed = p.status != part_status::review && p.status != part_status::unanswered &&
                                  p.status != part_status::invalid;
            // max: out of the part's points in this grading (the assignment's, when one weighs
            // the exercise), what --reviews checks with the same assignment.
            out += io::csv_text_cell(r.student) + "," + io::csv_text_cell(x.id) + "," + io::csv_text_cell(p.id) + "," +
                   points_str(p.max) + "," + (reviewed ? points_str(p.score) : std::string()) + "," +
                   io::csv_text_cell(reviewed ? p.review_comment : "") + "," +
                   io::csv_text_cell(sheet_answer(p.answer_text)) + "," +
                   io::csv_text_cell(io::capped_text(ps ? ps->rubric : "", max_cell_bytes)) + "\n";
        }
    }
    return out;
}

review_table review_table::read(const std::string& path, const exercise_set& set) {
    const std::string text = io::read_input_file(path, {io::default_max_input_bytes, /*toml=*/false, "review sheet"});
    const std::string name = path == "-" ? io::stdin_name : path;
    // Charged to the run's one budget before parsing: each cell (at most one per comma
    // or line break) costs about 16 doubles' worth (its text, its place), so a sheet of
    // tens of megabytes is refused with the budget named, not left to grow to gigabytes.
    const std::size_t cells = 1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), ',')) +
                              static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    io::charge_budget(cells * 16, "the review sheet's " + std::to_string(cells) + " cells", io::source_pos{name, 0, 0});
    return parse(text, name, set);
}

review_table review_table::parse(const std::string& text, const std::string& file, const exercise_set& set) {
    const std::string header = sheet_columns;
    if (!io::valid_utf8(text)) throw error(file + ": the review sheet is not UTF-8 text; save it as UTF-8 CSV");
    const io::csv_table sheet = io::read_csv_table(text, file);
    if (sheet.rows.empty()) throw error(file + ": the review sheet is empty (expected the header " + header + ")");
    for (const char* need : {"student", "exercise", "part", "points"})
        if (!sheet.columns.count(need))
            throw error(lessons::source_pos{file, 1, 1}.str() + ": the header has no '" + need + "' column (expected " +
                               header + ")");
    review_table out;
    for (std::size_t n = 1; n < sheet.rows.size(); ++n) {
        const io::csv_field* points = sheet.cell(n, "points");
        if (!points || points->text.find_first_not_of(" \t") == std::string::npos) continue;  // not reviewed yet
        const io::csv_field* student = sheet.cell(n, "student");
        const io::csv_field* ex = sheet.cell(n, "exercise");
        const io::csv_field* part = sheet.cell(n, "part");
        const lessons::source_pos row_at = sheet.rows[n][0].where;
        if (!student || !ex || !part) throw error(row_at.str() + ": the row has fewer cells than the header");
        const std::string sid = normalize_student_id(io::spreadsheet_text(student->text));
        const std::string eid = io::spreadsheet_text(ex->text), pid = io::spreadsheet_text(part->text);
        const part_spec* ps = open_part_of(set, eid, pid);
        if (!ps)
            throw error(ex->where.str() + ": '" + io::terminal_safe(eid) + "' part '" + io::terminal_safe(pid) +
                               "' is not an open exercise's part (the sheet reviews only kind = \"open\" exercises)");
        const bool number = io::plain_decimal(points->text);  // then strtod reads all of it
        const double v = number ? std::strtod(points->text.c_str(), nullptr) : 0.0;
        if (!number || !std::isfinite(v) || v < 0 || v > ps->points + 1e-9)
            throw error(points->where.str() + ": points must be a number from 0 to " + points_str(ps->points) +
                               " for " + eid + " part " + pid + ", found " + found_points(points->text));
        review rv;
        rv.points = v;
        rv.fraction = ps->points > 0 ? v / ps->points : 0.0;
        if (const io::csv_field* c = sheet.cell(n, "comment")) rv.comment = io::spreadsheet_text(c->text);
        if (const io::csv_field* a = sheet.cell(n, "answer")) rv.answer = a->text;
        rv.where = row_at;
        auto [it, fresh] = out.rows_.emplace(std::make_tuple(sid, eid, pid), rv);
        if (!fresh)
            throw error(row_at.str() + ": student '" + io::terminal_safe(sid) + "', " + eid + " part " + pid +
                               " is reviewed twice (also at " + it->second.where.str() + ")");
    }
    return out;
}

const review* review_table::find(const std::string& student, const std::string& exercise, const std::string& part) const {
    auto it = rows_.find(std::make_tuple(normalize_student_id(student), exercise, part));
    return it == rows_.end() ? nullptr : &it->second;
}

void grade_open_part(const exercise& x, const part_spec& p, const io::value_node& a, const kind_grading& g,
                     part_result& r) {
    if (!a.is_string()) {
        r.status = part_status::invalid;
        r.feedback = a.where.str() + ": expected a sentence (a string) for your teacher to read, found " + type_name(a);
        return;
    }
    r.answer_text = a.text;
    r.status = part_status::review;
    r.feedback = "for your teacher to read: 0 points until it is reviewed";
    const review* rv = g.reviews ? g.reviews->find(g.request.student, x.id, p.id) : nullptr;
    if (!rv) return;
    if (rv->answer != io::csv_text(sheet_answer(a.text))) {  // resubmitted since the review: read again
        r.review_note = rv->where.str() + ": the review of " + x.id + " part " + p.id +
                        " was of another answer; this one waits for a new review";
        return;
    }
    r.score = std::min(rv->fraction, 1.0) * r.max;
    r.review_comment = rv->comment;
    r.status = r.score >= r.max - 1e-9 ? part_status::correct : r.score > 0 ? part_status::partial : part_status::wrong;
    r.feedback = "reviewed by your teacher: " + points_str(r.score) + " of " + points_str(r.max) +
                 (rv->comment.empty() ? "" : " — " + rv->comment);
}

}  // namespace attn::grade
