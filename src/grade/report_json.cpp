// grade/report_json.cpp — the machine forms of a report: attn's JSON, Gradescope's
// results.json and JUnit XML. Scores are rounded to 1e-6 so the JSON never carries
// binary noise such as 0.30000000000000004.
#include <cmath>
#include <fstream>

#include "grade/report_format.hpp"
#include "grade/variant.hpp"
#include "io/input_read.hpp"

namespace attn::grade {

namespace {

double clean(double x) {
    const double r = std::round(x * 1e6) / 1e6;
    return r == 0.0 ? 0.0 : r;  // no -0
}

// A part's feedback for Gradescope and JUnit at its exercise's level (full: always).
std::string part_output(const exercise_result& x, const part_result& p, bool full = false) {
    std::string s = full ? p.feedback : shown_feedback(x, p);
    if (!p.mistake.empty() && (full || shows_mistakes(x))) s += "\nMistake: " + p.mistake_name + " [" + p.mistake + "]";
    if (x.personal) s += "\nYour numbers: variant " + x.variant + " (" + x.parameters + ")";
    return s.compare(0, 1, "\n") == 0 ? s.substr(1) : s;
}

// The exercises graded when no assignment named them (said in every report).
std::string answered_only_line(const grade_report& r) {
    std::string ids;
    for (const auto& x : r.exercises) ids += (ids.empty() ? "" : ", ") + x.id;
    return "Graded " + std::to_string(r.exercises.size()) + (r.exercises.size() == 1 ? " exercise" : " exercises") +
           (ids.empty() ? "" : ": " + ids) + "; no assignment given, so only the answered ones";
}

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

nlohmann::json report_json(const grade_report& r) {
    nlohmann::json j;
    j["student"] = r.student;
    j["files"] = r.files;
    j["gradable"] = r.gradable;
    if (!r.gradable) {
        j["reason"] = r.reason_word;
        j["message"] = r.reason;
    }
    j["score"] = clean(r.score);
    j["max_score"] = clean(r.max);
    j["exercises"] = nlohmann::json::array();
    for (const auto& x : r.exercises) {
        nlohmann::json e{{"id", x.id},
                         {"kind", x.kind},
                         {"title", x.title},
                         {"lesson", x.lesson},
                         {"score", clean(x.score)},
                         {"max_score", clean(x.max)},
                         {"answered", x.answered}};
        if (x.feedback != feedback_level::full) e["feedback_level"] = feedback_level_name(x.feedback);
        if (x.kind == "numeric") {
            e["numbers"] = {{"personal", x.personal}, {"practice", x.practice}, {"parameters", x.parameters}};
            if (!x.variant.empty()) e["numbers"]["variant"] = x.variant;
        }
        e["parts"] = nlohmann::json::array();
        for (const auto& p : x.parts) {
            nlohmann::json pj{{"id", p.id},
                              {"what", p.what},
                              {"status", status_name(p.status)},
                              {"score", clean(p.score)},
                              {"max_score", clean(p.max)},
                              {"feedback", shown_feedback(x, p)}};
            if (!p.mistake.empty() && shows_mistakes(x)) pj["mistake"] = {{"id", p.mistake}, {"name", p.mistake_name}};
            if (p.where.line > 0) pj["where"] = p.where.str();
            e["parts"].push_back(pj);
        }
        j["exercises"].push_back(e);
    }
    j["mistakes"] = r.shown_mistake_ids();
    if (r.answered_only) j["graded"] = answered_only_line(r);
    j["notes"] = r.notes;
    j["flags"] = r.teacher_view() ? r.flags : std::vector<std::string>{};  // teacher-only: never at a student's level
    if (!r.claimed_student.empty()) j["claimed_student"] = r.claimed_student;
    return j;
}

nlohmann::json gradescope_results(const grade_report& r, const std::string& visibility, const std::string& release_expected) {
    nlohmann::json j;
    j["score"] = clean(r.score);
    j["max_score"] = clean(r.max);
    j["visibility"] = visibility;
    j["stdout_visibility"] = "hidden";
    std::string output;
    if (!r.gradable) {
        output = "Your submission could not be graded: " + r.reason;
    } else {
        output = "Student " + (r.student.empty() ? std::string("(not named)") : r.student) + ": " +
                 (r.answered_only ? answered_only_line(r) + "." : std::to_string(r.exercises.size()) + " exercise(s) graded.");
    }
    // Flags (copies, a file naming another student) are the teacher's: they go to the
    // autograder's stdout (run_gradescope prints the text report there, and
    // stdout_visibility is hidden), never into what the student reads.
    for (const auto& n : r.notes) output += "\nNote: " + n;
    j["output"] = output;  // not a stage: Gradescope's field
    j["tests"] = nlohmann::json::array();
    int number = 0;
    for (const auto& x : r.exercises) {
        ++number;
        const std::string& shown = x.visibility.empty() ? visibility : x.visibility;
        if (x.parts.empty()) {  // not gradable: one failed test per exercise, so the student sees the list
            j["tests"].push_back({{"name", x.id + ": " + x.title},
                                  {"number", std::to_string(number)},
                                  {"score", 0.0},
                                  {"max_score", clean(x.max)},
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
                                  {"score", clean(p.score)},
                                  {"max_score", clean(p.max)},
                                  {"status", full ? "passed" : "failed"},
                                  {"output", part_output(x, p)},  // not a stage: Gradescope's field
                                  {"visibility", shown}});
        }
        if (!release_expected.empty() && x.feedback != feedback_level::full)  // never shown before the exercise itself
            j["tests"].push_back(released_test(x, number, stricter_visibility(release_expected, shown)));
    }
    return j;
}

std::vector<std::string> gradescope_students(const std::string& metadata_path) {
    std::string text;
    try {
        text = io::read_input_file(metadata_path);
    } catch (const io::input_error&) {
        return {};  // no metadata: the report names no student
    }
    const auto meta = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (meta.is_discarded() || !meta.contains("users") || !meta["users"].is_array()) return {};
    std::vector<std::string> out;
    for (const auto& u : meta["users"]) {  // a group submission lists every member
        if (!u.is_object()) continue;
        for (const char* key : {"sid", "email", "id"}) {  // an empty or blank field falls through to the next
            if (!u.contains(key) || !(u[key].is_string() || u[key].is_number())) continue;
            const std::string id = u[key].is_string() ? u[key].get<std::string>() : u[key].dump();
            if (normalize_student_id(id).empty()) continue;
            out.push_back(id);
            break;
        }
    }
    return out;
}

std::size_t gradescope_previous_submissions(const std::string& metadata_path) {
    std::string text;
    try {
        text = io::read_input_file(metadata_path);
    } catch (const io::input_error&) {
        return 0;
    }
    const auto meta = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (meta.is_discarded() || !meta.is_object() || !meta.contains("previous_submissions")) return 0;
    const auto& p = meta["previous_submissions"];
    return p.is_array() ? p.size() : 0;
}

std::string xml_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                // XML 1.0 forbids most control characters even escaped.
                if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') out += ' ';
                else out += c;
        }
    }
    return out;
}

std::string junit_suite(const grade_report& r, std::size_t* tests_out, std::size_t* failures_out) {
    std::size_t t = 0, f = 0;
    std::string cases;
    const std::string suite = r.student.empty() ? "submission" : r.student;
    if (!r.gradable) {
        ++t;
        cases += "    <testcase classname=\"" + xml_escape(suite) + "\" name=\"submission\">\n      <error type=\"" +
                 xml_escape(r.reason_word) + "\" message=\"" + xml_escape(r.reason) + "\"/>\n    </testcase>\n";
    }
    for (const auto& x : r.exercises)
        for (const auto& p : x.parts) {
            ++t;
            const bool full = p.score >= p.max - 1e-9;
            cases += "    <testcase classname=\"" + xml_escape(suite + "." + x.id) + "\" name=\"" + xml_escape(p.id) + "\">\n";
            if (!full) {
                ++f;
                cases += "      <failure type=\"" + std::string(status_name(p.status)) + "\" message=\"" +
                         xml_escape(points_str(p.score) + "/" + points_str(p.max) + ": " + shown_feedback(x, p)) + "\">" +
                         xml_escape(part_output(x, p)) + "</failure>\n";
            }
            cases += "    </testcase>\n";
        }
    if (tests_out) *tests_out += t;
    if (failures_out) *failures_out += f;
    return "  <testsuite name=\"" + xml_escape(suite) + "\" tests=\"" + std::to_string(t) + "\" failures=\"" + std::to_string(f) +
           "\" errors=\"" + std::to_string(r.gradable ? 0 : 1) + "\">\n" + cases + "  </testsuite>\n";
}

std::string junit_xml(const std::vector<grade_report>& reports) {
    std::size_t tests = 0, failures = 0, errors = 0;
    std::string body;
    for (const auto& r : reports) {
        body += junit_suite(r, &tests, &failures);
        errors += r.gradable ? 0 : 1;
    }
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"attn grade\" tests=\"" + std::to_string(tests) +
           "\" failures=\"" + std::to_string(failures) + "\" errors=\"" + std::to_string(errors) + "\">\n" + body +
           "</testsuites>\n";
}

}  // namespace attn::grade
