// grade/report_gradescope.cpp — Gradescope's results.json, the whole of it: the
// envelope (score, output, visibility), one test per part at its exercise's feedback
// level and visibility, the released full-feedback tests (release_expected), the note
// on when the total is shown (Gradescope's rule), and the readers of
// submission_metadata.json (submitters, previous submissions).
#include <cmath>

#include <nlohmann/json.hpp>

#include "grade/report.hpp"
#include "grade/variant.hpp"
#include "io/input_read.hpp"
#include "io/terminal_safe.hpp"

namespace attn::grade {

namespace {

// One test of results.json.
nlohmann::json test(const std::string& name, const std::string& number, double score, double max, bool passed,
                    const std::string& output, const std::string& visibility) {
    return {{"name", name}, {"number", number}, {"score", score}, {"max_score", max},  // rounded by sum_preserving
            {"status", passed ? "passed" : "failed"}, {"visibility", visibility},
            {"output", output}};  // not a stage: Gradescope's field
}

// Of two Gradescope visibilities, the one that shows less: hidden (never) before
// after_published, before after_due_date, before visible.
std::string stricter_visibility(const std::string& a, const std::string& b) {
    auto rank = [](const std::string& v) { return v == "hidden" ? 3 : v == "after_published" ? 2 : v == "after_due_date" ? 1 : 0; };
    return rank(a) >= rank(b) ? a : b;
}

// The sentence results.json's output carries when the total of these tests is not shown
// at once: the student sees it at the latest visibility of the tests that are not hidden
// (by Gradescope's rules hidden tests carry no points).
std::string total_note(const nlohmann::json& tests) {
    std::string when = "visible";
    for (const auto& t : tests)
        if (const std::string v = t.value("visibility", "visible"); v != "hidden") when = stricter_visibility(when, v);
    if (when == "after_due_date") return "Your total score is shown after the due date, when the rest of the feedback is released.";
    if (when == "after_published") return "Your total score is shown when your teacher publishes the grades.";
    return "";
}

// One exercise's tests: one per part, or one failed test when nothing was graded (so
// the student sees the list), then, graded below full feedback, the full feedback in a
// test of its own released at release_expected (never before the exercise); that one
// carries no points, and says "passed", what Gradescope infers for 0 of 0 anyway, for
// strict readers.
void exercise_tests(const grade_report& r, const exercise_result& x, int number, const gradescope_visibility& v,
                    nlohmann::json& tests) {
    const std::string& shown = !v.command_line.empty() ? v.command_line : !x.visibility.empty() ? x.visibility : v.tests;
    if (x.parts.empty())
        tests.push_back(test(x.id + ": " + x.title, std::to_string(number), 0.0, x.max, false,
                             r.gradable ? "not answered" : "not graded: " + r.reason, shown));
    int sub = 0;
    for (const auto& p : x.parts)
        tests.push_back(test(x.id + " · " + p.id + (x.parts.size() == 1 ? ": " + x.title : ""),
                             std::to_string(number) + "." + std::to_string(++sub), p.score, p.max, p.score >= p.max - 1e-9,
                             part_output(x, p), shown));
    if (x.parts.empty() || v.release_expected.empty() || x.feedback == feedback_level::full) return;
    std::string full;
    for (const auto& p : x.parts) full += (full.empty() ? "" : "\n") + p.id + ": " + part_output(x, p, true);
    tests.push_back(test(x.id + ": full feedback with the expected values", std::to_string(number) + ".x", 0.0, 0.0, true, full,
                         stricter_visibility(v.release_expected, shown)));
}

// Each test's score and max_score rounded so that they add up to the rounded totals
// exactly (33, never 32.999997 from 99 thirds): a running sum is rounded, and each test
// gets the step of it (the largest-remainder rule, in millionths).
void sum_preserving(nlohmann::json& tests) {
    for (const char* key : {"score", "max_score"}) {
        double exact = 0.0;
        long long shown = 0;  // millionths handed out so far
        for (auto& t : tests) {
            exact += t[key].get<double>();
            const long long upto = std::llround(exact * 1e6);
            t[key] = static_cast<double>(upto - shown) / 1e6;
            shown = upto;
        }
    }
}

}  // namespace

nlohmann::json gradescope_results(const grade_report& r, const gradescope_visibility& v) {
    nlohmann::json j;
    j["score"] = json_score(r.score);
    j["max_score"] = json_score(r.max);
    j["visibility"] = v.command_line.empty() ? v.tests : v.command_line;
    j["stdout_visibility"] = "hidden";
    std::string output = "Your submission could not be graded: " + r.reason;
    if (r.gradable)
        output = "Student " + (r.student.empty() ? std::string("(not named)") : io::terminal_safe(r.student)) + ": " +
                 (r.answered_only ? answered_only_line(r) + "." : std::to_string(r.exercises.size()) + " exercise(s) graded.");
    j["tests"] = nlohmann::json::array();
    for (std::size_t i = 0; i < r.exercises.size(); ++i)
        exercise_tests(r, r.exercises[i], static_cast<int>(i + 1), v, j["tests"]);
    sum_preserving(j["tests"]);
    if (const std::string note = total_note(j["tests"]); !note.empty()) output += "\n" + note;
    // Flags (copies, a file naming another student) are the teacher's: they go to the
    // autograder's stdout (run_gradescope prints the text report there, and
    // stdout_visibility is hidden), never into what the student reads.
    // The late deduction: the total above (score) is after it; the tests keep the points earned.
    if (r.late) output += "\nLate policy: " + io::terminal_safe(r.late->note);
    for (const auto& n : r.notes) output += "\nNote: " + io::terminal_safe(n);  // a sid may hold a newline
    j["output"] = output;  // not a stage: Gradescope's field
    return j;
}
gradescope_metadata read_gradescope_metadata(const std::string& path) {
    gradescope_metadata out;
    std::string text;
    try {
        text = io::read_input_file(path);
    } catch (const io::input_error&) {
        return out;  // no metadata: the report names no student
    }
    const auto meta = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (meta.is_discarded() || !meta.is_object()) return out;
    if (const auto p = meta.find("previous_submissions"); p != meta.end() && p->is_array()) out.previous_submissions = p->size();
    if (const auto c = meta.find("created_at"); c != meta.end() && c->is_string()) out.created_at = c->get<std::string>();
    if (!meta.contains("users") || !meta["users"].is_array()) return out;
    for (const auto& u : meta["users"]) {  // a group submission lists every member
        if (!u.is_object()) continue;
        for (const char* key : {"sid", "email", "id"}) {  // an empty or blank field falls through to the next
            if (!u.contains(key) || !(u[key].is_string() || u[key].is_number())) continue;
            const std::string id = u[key].is_string() ? u[key].get<std::string>() : u[key].dump();
            if (normalize_student_id(id).empty()) continue;
            out.students.push_back(id);
            break;
        }
    }
    return out;
}

}  // namespace attn::grade
