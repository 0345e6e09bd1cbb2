// grade/report_text.cpp — the human-readable report (attn grade's default output).
#include <fmt/format.h>

#include "grade/class_batch.hpp"
#include "grade/report.hpp"
#include "io/terminal_safe.hpp"
#include "trace/text_width.hpp"

namespace attn::grade {

namespace {

const char* mark(part_status s) {
    static const char* const marks[] = {"ok  ", "ok* ", "part", "no  ", "--  ", "bad ", "rev "};
    return marks[static_cast<int>(s)];  // in part_status's order
}

// A titled list of (student, note) lines for the class summary, the first max_listed
// of them (the rest are counted, and all are in the gradebook); "" when empty.
std::string student_list(const std::string& title, const std::vector<std::pair<std::string, std::string>>& rows,
                         std::size_t max_listed) {
    if (rows.empty()) return "";
    std::string out = "\n" + title + ":\n";
    for (std::size_t i = 0; i < rows.size() && i < max_listed; ++i)
        out += "  " + io::terminal_safe(rows[i].first) + "  " + io::terminal_safe(rows[i].second) + "\n";
    if (rows.size() > max_listed) out += fmt::format("  … and {} more (gradebook notes)\n", rows.size() - max_listed);
    return out;
}

}  // namespace

std::string report_text(const grade_report& r) {
    std::string files;
    for (const auto& f : r.files) files += (files.empty() ? "" : ", ") + io::terminal_safe(f);
    std::string out = "Student " + (r.student.empty() ? std::string("(not named)") : io::terminal_safe(r.student)) + " — " +
                      files + "\n";
    if (!r.gradable)
        return out + "NOT GRADABLE (" + r.reason_word + "): " + io::terminal_safe(r.reason) + "\n" + "Total " +
               points_str(r.score) + " / " + points_str(r.max) + "\n";
    if (r.answered_only) out += trace::wrap_words(answered_only_line(r), "");
    for (const auto& x : r.exercises) {
        out += "\n" + fmt::format("{}  {}  [{} / {}]\n", x.id, x.title, points_str(x.score), points_str(x.max));
        if (x.kind == "numeric")
            out += "  numbers: " + (x.personal ? "yours, variant " + x.variant + " (" + x.parameters + ")"
                                    : x.practice ? "the practice variant, not a class's numbers (" + x.parameters + ")"
                                                 : x.parameters) + "\n";
        for (const auto& p : x.parts) {
            const std::string head = fmt::format("  {} {:<10} {:>9}  ", mark(p.status), p.id,
                                                 points_str(p.score) + "/" + points_str(p.max));
            const std::size_t pad = trace::display_width(head);
            const std::string text = trace::wrap_words(io::terminal_safe(shown_feedback(x, p)), std::string(pad, ' '));
            // the first feedback line goes beside the head
            out += head + (text.size() > pad ? text.substr(pad) : "\n");
            if (!p.mistake.empty() && shows_mistakes(x)) out += std::string(pad, ' ') + "mistake: " + p.mistake_name + "\n";
        }
    }
    const double pct = r.max > 0 ? 100.0 * r.score / r.max : 0.0;
    if (r.late) out += "\n" + trace::wrap_words("Late policy: " + io::terminal_safe(r.late->note), "  ");
    out += "\n" + fmt::format("Total {} / {} ({:.1f}%)\n", points_str(r.score), points_str(r.max), pct);
    if (r.teacher_view())  // flags are the teacher's: never at a student's feedback level
        for (const auto& f : r.flags) out += trace::wrap_words("FLAG: " + io::terminal_safe(f), "");
    if (!r.notes.empty()) {
        out += "Notes:\n";
        for (const auto& n : r.notes) out += trace::wrap_words(io::terminal_safe(n), "  ");
    }
    return out;
}

std::string class_summary_text(const class_result& c) {
    constexpr std::size_t max_listed = 50;  // the rest are counted, and all are in the gradebook
    std::string out = fmt::format("Class: {} submissions, {} graded, {} not gradable\n", c.students, c.graded, c.students - c.graded);
    const std::string ids = fmt::format("{}", fmt::join(c.exercise_ids, ", "));
    out += "Exercises: " + (ids.empty() ? std::string("none") : ids) + "\n";
    if (c.students)
        out += "Mean score: " + points_str(c.score_sum / static_cast<double>(c.students)) + " / " + points_str(c.max) + "\n";
    if (c.late)
        out += fmt::format("Late: {} {}, {} points deducted in all (gradebook: before_late, hours_late, late_deduction)\n", c.late,
                           c.late == 1 ? "submission" : "submissions", points_str(c.late_points));
    out += "\nMisconceptions (wrong parts that match a known mistake):\n";
    if (c.histogram.empty()) out += "  none recognised\n";
    std::size_t top = c.histogram.empty() ? 1 : c.histogram.front().parts;
    std::size_t w = 10;
    for (const auto& m : c.histogram) w = std::max(w, trace::display_width(m.name));
    for (const auto& m : c.histogram) {
        const std::size_t bar = (m.parts * 30 + top - 1) / top;
        out += "  " + m.name + std::string(w - trace::display_width(m.name), ' ') +
               fmt::format("  {:>4} {:<5}  {:>4} {:<8}  {}\n", m.parts, m.parts == 1 ? "part" : "parts", m.students,
                           m.students == 1 ? "student" : "students", std::string(bar, '#'));
        for (const auto& [ex, n] : m.by_exercise)
            out += fmt::format("      {:<{}}  {:>4} {}\n", ex, w - 4, n, n == 1 ? "part" : "parts");
    }
    out += student_list(fmt::format("Copies ({} {}; the same notes are in the gradebook, never in a student's report)",
                                    c.copies.size(), c.copies.size() == 1 ? "student" : "students"),
                        c.copies, max_listed);
    out += student_list("Students with several files (the best counted; gradebook notes)", c.several_files, max_listed);
    out += student_list("Not gradable", c.not_gradable, c.not_gradable.size());
    return out;
}

}  // namespace attn::grade
