// grade/regrade.cpp — see regrade.hpp: the old class JSON read into a small index, the
// comparison by elimination, and its text and JSON forms.
#include "grade/regrade.hpp"

#include <cmath>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/keyed_hash.hpp"
#include "grade/variant.hpp"
#include "io/input_read.hpp"
#include "io/terminal_safe.hpp"

namespace attn::grade {

namespace {

// The answer as one canonical string: kind, then its value (numbers to 17 digits).
// Written in place (fmt::format_to): every graded part's answer goes through it.
void canonical(const io::value_node& v, std::string& out) {
    auto to = std::back_inserter(out);
    fmt::format_to(to, "{}:", static_cast<int>(v.kind));
    if (v.kind == io::value_node::type::number) fmt::format_to(to, "{:.17g}", v.number);
    if (v.kind == io::value_node::type::boolean) out += v.flag ? '1' : '0';
    fmt::format_to(to, "{}:", v.text.size());
    out += v.text;
    out += '[';
    for (const auto& e : v.items) canonical(e, out);
    for (double x : v.numbers) fmt::format_to(to, "2:{:.17g}0:[]", x);  // a packed number as its node would read
    for (const auto& [k, e] : v.fields) {
        fmt::format_to(to, "{}:", k.size());
        out += k;
        canonical(e, out);
    }
    out += ']';
}

double number_or(const nlohmann::json& j, const char* key, double fallback = 0.0) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string string_or(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool moved(double a, double b) { return std::fabs(a - b) > 5e-7; }  // the JSON keeps 6 decimals

}  // namespace

std::string answer_digest(const io::value_node& v) {
    std::string text;
    canonical(v, text);
    static const auto digest_key = course_key("attn answer digest");  // a public label, not a secret
    return base32(keyed_hash(digest_key, {"attn-answer-v1", text}, 10), 16);
}

regrade_base regrade_base::read(const std::string& path) {
    // Up to 1 GiB; only the keys compared stay in memory (the callback drops the rest as it reads).
    const std::string text = io::read_input_file(path, {io::default_max_input_bytes * 16, false, "old class JSON"});
    regrade_base b;
    b.path_ = path;
    nlohmann::json j;
    static const std::set<std::string> kept = {"students", "student", "score", "gradable", "late", "deduction", "exercises", "id",
                                               "kind", "numbers", "variant", "parts", "max_score", "answer_digest", "tolerance"};
    const auto keep = [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        return depth == 0 || event != nlohmann::json::parse_event_t::key || kept.count(parsed.get<std::string>()) > 0;
    };
    try {
        j = nlohmann::json::parse(text, keep);
    } catch (const nlohmann::json::parse_error& e) {
        throw error(source_pos::at_offset(path, static_cast<std::int64_t>(e.byte)), "not JSON; expected attn's class JSON (`attn grade --class DIR --format json`)");
    }
    if (!j.is_object() || !j.contains("students") || !j["students"].is_array())
        throw error(path + ": expected attn's class JSON (`attn grade --class DIR --format json`), with a 'students' list");
    for (const auto& s : j["students"]) {
        if (!s.is_object()) continue;
        old_student o;
        o.score = number_or(s, "score");
        o.gradable = !s.contains("gradable") || s["gradable"] == true;
        if (s.contains("late") && s["late"].is_object()) o.late = number_or(s["late"], "deduction");
        if (s.contains("exercises") && s["exercises"].is_array())
            for (const auto& x : s["exercises"]) {
                if (!x.is_object() || !x.contains("parts") || !x["parts"].is_array()) continue;
                const std::string variant = x.contains("numbers") ? string_or(x["numbers"], "variant") : "";
                for (const auto& p : x["parts"])
                    if (p.is_object())
                        o.parts[{string_or(x, "id"), string_or(p, "id")}] = {number_or(p, "score"), number_or(p, "max_score"),
                                                                             string_or(p, "answer_digest"), string_or(p, "tolerance"),
                                                                             string_or(x, "kind"), variant};
            }
        b.students_[normalize_student_id(string_or(s, "student"))] = std::move(o);
    }
    return b;
}

namespace {

// Why one part's points moved, by elimination (regrade.hpp).
std::pair<std::string, std::string> why_part(const exercise_result& x, const part_result& p, const std::string& digest,
                                             const std::string& tolerance, const std::string& kind, const std::string& variant,
                                             double old_max) {
    if (moved(old_max, p.max)) return {"points", "worth " + points_str(old_max) + " → " + points_str(p.max)};
    if (digest != p.answer_digest) return {"answer", "the answer is not the one graded before"};
    if (variant != x.variant) return {"numbers", "variant " + variant + " → " + x.variant};
    if (kind == "open") return {"review", p.review_comment};
    if (kind == "numeric" && tolerance != p.tolerance) return {"tolerance", tolerance + " → " + p.tolerance};
    return {"key", "the same answer, numbers and tolerance: the expected answer or its grading changed"};
}

}  // namespace

std::optional<regrade_entry> regrade_base::compare(const grade_report& r) {
    const std::string who = normalize_student_id(r.student);
    seen_.insert(who);
    regrade_entry e{who, 0.0, r.score, {}};
    const auto it = students_.find(who);
    if (it == students_.end()) {
        e.changes.push_back({"", "", 0.0, r.score, "new", "not in " + path_});
        return e;
    }
    const old_student& o = it->second;
    e.before = o.score;
    if (o.gradable != r.gradable)
        e.changes.push_back({"", "", o.score, r.score, "gradable", r.gradable ? "gradable now" : "not gradable now: " + r.reason_word});
    std::set<std::pair<std::string, std::string>> now;
    for (const auto& x : r.exercises)
        for (const auto& p : x.parts) {
            now.insert({x.id, p.id});
            const auto op = o.parts.find({x.id, p.id});
            if (op == o.parts.end()) {
                e.changes.push_back({x.id, p.id, 0.0, p.score, "new", "not graded before"});
                continue;
            }
            if (!moved(op->second.score, p.score)) continue;
            const auto [why, detail] = why_part(x, p, op->second.digest, op->second.tolerance, op->second.kind,
                                                op->second.variant, op->second.max);
            e.changes.push_back({x.id, p.id, op->second.score, p.score, why, detail});
        }
    for (const auto& [key, op] : o.parts)
        if (!now.count(key) && op.score > 0) e.changes.push_back({key.first, key.second, op.score, 0.0, "dropped", "not graded now"});
    const double late = r.late ? r.late->deduction : 0.0;
    if (moved(o.late, late))
        e.changes.push_back({"", "", o.late, late, "late policy", r.late ? r.late->note : "no late policy now"});
    if (e.changes.empty() && !moved(o.score, r.score)) return std::nullopt;
    return e;
}

std::vector<std::string> regrade_base::missing() const {
    std::vector<std::string> out;
    for (const auto& [id, o] : students_)
        if (!seen_.count(id)) out.push_back(id);
    return out;
}

std::string regrade_text(const regrade_base& base, const std::vector<regrade_entry>& entries, std::size_t compared) {
    std::string out = fmt::format("\nRegrade against {}: {} of {} students changed\n", io::terminal_safe(base.path()),
                                  entries.size(), compared);
    for (const auto& e : entries) {
        out += "  " + io::terminal_safe(e.student) + "  " + points_str(e.before) + " → " + points_str(e.after) + "\n";
        for (const auto& c : e.changes)
            out += "    " + (c.exercise.empty() ? std::string("") : c.exercise + " " + c.part + ": ") +
                   (c.why == "late policy" ? "deducted " : "") + points_str(c.before) + " → " + points_str(c.after) + " (" +
                   c.why + (c.detail.empty() ? "" : ": " + io::terminal_safe(c.detail)) + ")\n";
    }
    for (const auto& m : base.missing()) out += "  " + io::terminal_safe(m) + "  no longer in the class\n";
    return out;
}

nlohmann::json regrade_json(const regrade_base& base, const std::vector<regrade_entry>& entries) {
    nlohmann::json students = nlohmann::json::array();
    for (const auto& e : entries) {
        nlohmann::json changes = nlohmann::json::array();
        for (const auto& c : e.changes)
            changes.push_back({{"exercise", c.exercise}, {"part", c.part}, {"before", json_score(c.before)},
                               {"after", json_score(c.after)}, {"why", c.why}, {"detail", c.detail}});
        students.push_back({{"student", e.student}, {"before", json_score(e.before)}, {"after", json_score(e.after)},
                            {"changes", changes}});
    }
    return {{"against", base.path()}, {"students", students}, {"no_longer_in_class", base.missing()}};
}

}  // namespace attn::grade
