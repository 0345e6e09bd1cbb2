// grade/kinds/registry.cpp — the list of exercise kinds (see kind.hpp) and what the
// rows share: finding a part's answer, "not answered yet", the preamble of every part
// grader, and reading a pick among the choices. A new kind: its file in this folder and
// one entry below. Nothing here matches keywords in prose: an answer is a shape, or
// picks choices.
#include <algorithm>

#include <fmt/format.h>

#include "grade/exercise.hpp"
#include "grade/grader.hpp"
#include "grade/regrade.hpp"
#include "grade/kinds/kind.hpp"
#include "grade/report.hpp"
#include "grade/variant.hpp"
#include "io/text_fold.hpp"

namespace attn::grade {

namespace {
// A declared mistake's id as the words a student reads: "causal-is-padding" → "causal is padding".
std::string mistake_words(std::string id) {
    for (char& c : id)
        if (c == '-' || c == '_') c = ' ';
    return id;
}
}  // namespace

const std::vector<const exercise_kind*>& exercise_kinds() {
    static const std::vector<const exercise_kind*> all{&numeric_kind, &shape_kind, &choice_kind, &multi_kind, &open_kind, &circuit_kind};
    return all;
}

const exercise_kind* find_exercise_kind(const std::string& name) {
    for (const exercise_kind* k : exercise_kinds())
        if (name == k->name) return k;
    return nullptr;
}

std::string exercise_kind_list() {
    const auto& all = exercise_kinds();
    std::string out;
    for (std::size_t i = 0; i < all.size(); ++i)
        out += std::string(i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i]->name;
    return out;
}

std::string choice_letter(const exercise& x, const std::string& answer) {
    const auto at = std::find(x.choices.begin(), x.choices.end(), answer);
    return at == x.choices.end() ? "" : fmt::format("({}) ", static_cast<char>('a' + (at - x.choices.begin()) % 26));
}

bool is_choice(const exercise& x, const std::string& text) {
    return std::find(x.choices.begin(), x.choices.end(), text) != x.choices.end();
}

bool is_unanswered(const io::value_node* v) {
    if (!v || v->kind == io::value_node::type::null) return true;
    if (v->is_string()) {
        const auto b = v->text.find_first_not_of(" \t\r\n");
        if (b == std::string::npos) return true;
        return v->text.compare(b, 4, "TODO") == 0;
    }
    return false;
}

const io::value_node* part_answer(const exercise& x, const part_spec& p, const io::value_node* exercise_answer) {
    if (!exercise_answer) return nullptr;
    if (exercise_answer->is_table()) return exercise_answer->get(p.id);
    if (x.parts.size() == 1) return exercise_answer;  // "01-scale" = 2.0
    return nullptr;
}

part_result start_part(const part_spec& p, const std::string& what, const io::value_node* a) {
    part_result r;
    r.id = p.id;
    r.what = what;
    r.max = p.points;
    r.tolerance = p.tol.str();
    if (is_unanswered(a)) {
        r.feedback = "not answered";
    } else {
        r.where = a->where;
        r.answer_digest = answer_digest(*a);
    }
    return r;
}

std::optional<std::size_t> find_choice(const exercise& x, const std::string& text) {
    const std::string t = io::folded_words(text);
    for (std::size_t i = 0; i < x.choices.size(); ++i) {
        const std::string letter(1, static_cast<char>('a' + i));
        const std::string c = io::folded_words(x.choices[i]);
        if (t == c || t == letter || t == letter + " " + c) return i;
    }
    return std::nullopt;
}

std::string choice_list(const exercise& x) {
    std::string list;
    for (const auto& c : x.choices) list += (list.empty() ? "" : " | ") + c;
    return list;
}

std::string lettered_choices(const exercise& x) {
    std::string list;
    for (std::size_t i = 0; i < x.choices.size(); ++i)
        list += (i ? " | " : "") + std::string(1, static_cast<char>('a' + i)) + ") " + x.choices[i];
    return list;
}

void explain_wrong_pick(const exercise& x, const part_spec& p, const std::string& chosen, part_result& r) {
    for (const auto& m : p.mistakes)
        if (io::folded_words(m.answer) == io::folded_words(chosen)) {
            if (r.mistake.empty()) {
                r.mistake = m.id;
                r.mistake_name = mistake_words(m.id);
            }
            r.feedback.full_only(": " + m.feedback);
            return;
        }
    if (auto it = x.choice_feedback.find(chosen); it != x.choice_feedback.end()) r.feedback.full_only(": " + it->second);
}

void take_variant(const exercise_numbers& n, exercise_result& r) {
    r.personal = n.personal;
    r.practice = n.practice;
    r.variant = n.code;
    r.parameters = n.parameters;
}

void grade_parts(const exercise& x, const io::value_node* answer, const kind_grading& g, exercise_result& r, part_grader one) {
    for (const auto& p : x.parts) {
        const io::value_node* a = part_answer(x, p, answer);
        part_result& pr = r.parts.emplace_back(start_part(p, x.kind->name, a));
        if (!is_unanswered(a)) one(x, p, *a, g, pr);
        if (!pr.review_note.empty()) g.notes.push_back(pr.review_note);
    }
}

std::string solve_parts(const exercise& x, solution_line line) {
    std::string out;  // "  q1: …" per part, or "  …" for the only one
    for (const auto& p : x.parts) out += (x.parts.size() > 1 ? "  " + p.id + ": " : "  ") + line(x, p) + "\n";
    return out;
}

}  // namespace attn::grade
