// grade/report_gradescope.cpp — Gradescope's results.json, the whole of it: the
// envelope (score, output, visibility), one test per part at its exercise's feedback
// level and visibility, the released full-feedback tests (release_expected), the note
// on when the total is shown (Gradescope's rule), and the readers of
// submission_metadata.json (submitters, previous submissions).
#include "grade/report_format.hpp"
#include "grade/variant.hpp"
#include "io/input_read.hpp"

namespace attn::grade {

namespace {

// Gradescope: the full feedback of an exercise graded at a lower level, in a test of
// its own released at `visibility` (after_due_date …); it carries no points.
nlohmann::json released_test(const exercise_result& x, int number, const std::string& visibility) {
    std::string out;
    for (const auto& p : x.parts) out += (out.empty() ? "" : "\n") + p.id + ": " + part_output(x, p, true);
    return {{"name", x.id + ": full feedback with the expected values"},
            {"number", std::to_string(number) + ".x"},
            {"score", 0.0},
            {"max_score", 0.0},
            {"status", "passed"},  // what Gradescope infers for 0 of 0 anyway; said, for strict readers
            {"output", out},  // not a stage: Gradescope's field
            {"visibility", visibility}};
}

}  // namespace

// Of two Gradescope visibilities, the one that shows less: hidden (never) before
// after_published, before after_due_date, before visible.
std::string stricter_visibility(const std::string& a, const std::string& b) {
    auto rank = [](const std::string& v) { return v == "hidden" ? 3 : v == "after_published" ? 2 : v == "after_due_date" ? 1 : 0; };
    return rank(a) >= rank(b) ? a : b;
}

std::string total_visibility(const nlohmann::json& tests) {
    std::string when = "visible";
    for (const auto& t : tests)
        if (const std::string v = t.value("visibility", "visible"); v != "hidden") when = stricter_visibility(when, v);
    return when;
}

namespace {

// The sentence results.json's output carries when the total is not shown at once.
std::string total_note(const std::string& when) {
    if (when == "after_due_date") return "Your total score is shown after the due date, when the rest of the feedback is released.";
    if (when == "after_published") return "Your total score is shown when your teacher publishes the grades.";
    return "";
}

}  // namespace

nlohmann::json gradescope_results(const grade_report& r, const gradescope_visibility& v) {
    nlohmann::json j;
    j["score"] = json_score(r.score);
    j["max_score"] = json_score(r.max);
    j["visibility"] = v.command_line.empty() ? v.tests : v.command_line;
    j["stdout_visibility"] = "hidden";
    std::string output;
    if (!r.gradable) {
        output = "Your submission could not be graded: " + r.reason;
    } else {
        output = "Student " + (r.student.empty() ? std::string("(not named)") : r.student) + ": " +
                 (r.answered_only ? answered_only_line(r) + "." : std::to_string(r.exercises.size()) + " exercise(s) graded.");
    }
    j["tests"] = nlohmann::json::array();
    int number = 0;
    for (const auto& x : r.exercises) {
        ++number;
        const std::string& shown = !v.command_line.empty() ? v.command_line : !x.visibility.empty() ? x.visibility : v.tests;
        if (x.parts.empty()) {  // not gradable: one failed test per exercise, so the student sees the list
            j["tests"].push_back({{"name", x.id + ": " + x.title},
                                  {"number", std::to_string(number)},
                                  {"score", 0.0},
                                  {"max_score", json_score(x.max)},
                                  {"status", "failed"},
                                  {"output", r.gradable ? "not answered" : "not graded: " + r.reason},  // not a stage: Gradescope's field
                                  {"visibility", shown}});
            continue;
        }
        int sub = 0;
        for (const auto& p : x.parts) {
            ++sub;
            const bool full = p.score >= p.max - 1e-9;
            j["tests"].push_back({{"name", x.id + " · " + p.id + (x.parts.size() == 1 ? ": " + x.title : "")},
                                  {"number", std::to_string(number) + "." + std::to_string(sub)},
                                  {"score", json_score(p.score)},
                                  {"max_score", json_score(p.max)},
                                  {"status", full ? "passed" : "failed"},
                                  {"output", part_output(x, p)},  // not a stage: Gradescope's field
                                  {"visibility", shown}});
        }
        if (!v.release_expected.empty() && x.feedback != feedback_level::full)  // never shown before the exercise itself
            j["tests"].push_back(released_test(x, number, stricter_visibility(v.release_expected, shown)));
    }
    if (const std::string note = total_note(total_visibility(j["tests"])); !note.empty()) output += "\n" + note;
    // Flags (copies, a file naming another student) are the teacher's: they go to the
    // autograder's stdout (run_gradescope prints the text report there, and
    // stdout_visibility is hidden), never into what the student reads.
    for (const auto& n : r.notes) output += "\nNote: " + n;
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
