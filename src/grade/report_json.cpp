// grade/report_json.cpp — attn's JSON form of a report: one student, and the class
// envelope ({"students": [...], "exercises", "histogram"}) written student by student.
// Scores are rounded to 1e-6 so the JSON never carries binary noise such as
// 0.30000000000000004.
#include <nlohmann/json.hpp>

#include "grade/class_batch.hpp"
#include "trace/number_format.hpp"

namespace attn::grade {

// Rounded to 1e-6, never -0 (attn's JSON and Gradescope's).
double json_score(double x) { return trace::rounded(x, 6); }

// The exercises graded when no assignment named them (said in every report).
std::string answered_only_line(const grade_report& r) {
    std::string ids;
    for (const auto& x : r.exercises) ids += (ids.empty() ? "" : ", ") + x.id;
    return "Graded " + std::to_string(r.exercises.size()) + (r.exercises.size() == 1 ? " exercise" : " exercises") +
           (ids.empty() ? "" : ": " + ids) + "; no assignment given, so only the answered ones";
}

// A part's feedback for Gradescope and JUnit at its exercise's level (full: always).
std::string part_output(const exercise_result& x, const part_result& p, bool full) {
    std::string s = full ? p.feedback.full() : shown_feedback(x, p);
    if (!p.mistake.empty() && (full || shows_mistakes(x))) s += "\nMistake: " + p.mistake_name;
    if (x.personal) s += "\nYour numbers: variant " + x.variant + " (" + x.parameters + ")";
    return s.compare(0, 1, "\n") == 0 ? s.substr(1) : s;
}

nlohmann::json report_json(const grade_report& r) {
    nlohmann::json j{{"student", r.student},          {"files", r.files},
                     {"gradable", r.gradable},         {"score", json_score(r.score)},
                     {"max_score", json_score(r.max)}, {"exercises", nlohmann::json::array()}};
    if (!r.gradable) {
        j["reason"] = r.reason_word;
        j["message"] = r.reason;
    }
    for (const auto& x : r.exercises) {
        nlohmann::json e{{"id", x.id},
                         {"kind", x.kind},
                         {"title", x.title},
                         {"lesson", x.lesson},
                         {"score", json_score(x.score)},
                         {"max_score", json_score(x.max)},
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
                              {"score", json_score(p.score)},
                              {"max_score", json_score(p.max)},
                              {"feedback", shown_feedback(x, p)}};
            if (!p.mistake.empty() && shows_mistakes(x)) pj["mistake"] = {{"id", p.mistake}, {"name", p.mistake_name}};
            if (p.where.line > 0) pj["where"] = p.where.str();

            e["parts"].push_back(pj);
        }
        j["exercises"].push_back(e);
    }
    j["mistakes"] = r.mistake_ids(/*shown_only=*/true);
    if (r.answered_only) j["graded"] = answered_only_line(r);
    j["notes"] = r.notes;
    j["flags"] = r.teacher_view() ? r.flags : std::vector<std::string>{};  // teacher-only: never at a student's level
    if (!r.claimed_student.empty()) j["claimed_student"] = r.claimed_student;
    if (r.late)
        j["late"] = {{"due", r.late->due}, {"submitted", r.late->submitted}, {"extended", r.late->extended},
                     {"hours_late", json_score(r.late->hours)}, {"periods", r.late->periods},
                     {"score_before", json_score(r.late->before)}, {"deduction", json_score(r.late->deduction)},
                     {"score_after", json_score(r.score)}, {"note", r.late->note}};
    return j;
}

// attn's class JSON, written student by student as each is graded:
// {"students": [...], "exercises": [...], "histogram": {...}}.
std::string class_json_open() { return "{\n\"students\": [\n"; }

// A student of the class JSON: the report, and per part what a later --regrade compares
// (the answer's digest; numeric parts: the tolerance).
std::string class_json_student(const grade_report& r, bool first) {
    nlohmann::json j = report_json(r);
    for (std::size_t i = 0; i < r.exercises.size(); ++i)
        for (std::size_t k = 0; k < r.exercises[i].parts.size(); ++k) {
            const part_result& p = r.exercises[i].parts[k];
            auto& pj = j["exercises"][i]["parts"][k];
            if (!p.answer_digest.empty()) pj["answer_digest"] = p.answer_digest;
            if (r.exercises[i].kind == "numeric") pj["tolerance"] = p.tolerance;
        }
    return (first ? "" : ",\n") + j.dump(2);
}

std::string class_json_close(const class_result& c) {
    nlohmann::json histogram = nlohmann::json::array();
    for (const auto& m : c.histogram)
        histogram.push_back(
            {{"id", m.id}, {"name", m.name}, {"parts", m.parts}, {"students", m.students}, {"by_exercise", m.by_exercise}});
    return "\n],\n\"exercises\": " + nlohmann::json(c.exercise_ids).dump() + ",\n\"histogram\": " + histogram.dump(2) + "\n}\n";
}

}  // namespace attn::grade
