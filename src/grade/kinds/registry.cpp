// grade/kinds/registry.cpp — the list of exercise kinds (see kind.hpp) and what the
// rows share. A new kind: its file in this folder and one entry below.
#include <fmt/format.h>

#include "grade/exercise.hpp"
#include "grade/grade_parts.hpp"
#include "grade/kinds/kind.hpp"
#include "grade/report.hpp"

namespace attn::grade {

const std::vector<const exercise_kind*>& exercise_kinds() {
    static const std::vector<const exercise_kind*> all{&numeric_kind, &shape_kind, &choice_kind, &multi_kind, &open_kind};
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

const exercise_kind* default_exercise_kind() { return &numeric_kind; }

std::string solution_label(const exercise& x, const part_spec& p) { return x.parts.size() > 1 ? "  " + p.id + ": " : "  "; }

std::string choice_letter(const exercise& x, const std::string& answer) {
    for (std::size_t i = 0; i < x.choices.size(); ++i)
        if (x.choices[i] == answer) return fmt::format("({}) ", static_cast<char>('a' + i % 26));
    return "";
}

bool is_choice(const exercise& x, const std::string& text) {
    for (const auto& c : x.choices)
        if (c == text) return true;
    return false;
}

void grade_each_part(const exercise& x, const answer_value* answer, const kind_grading& g, exercise_result& r,
                     part_grader one) {
    for (const auto& p : x.parts) {
        r.parts.push_back(one(x, p, part_answer(x, p, answer), g));
        if (!r.parts.back().review_note.empty()) g.notes.push_back(r.parts.back().review_note);
    }
}

std::string solve_each_part(const exercise& x, std::string (*line)(const exercise& x, const part_spec& p)) {
    std::string out;
    for (const auto& p : x.parts) out += solution_label(x, p) + line(x, p) + "\n";
    return out;
}

}  // namespace attn::grade
