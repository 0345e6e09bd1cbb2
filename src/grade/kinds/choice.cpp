// grade/kinds/choice.cpp — the choice kind: a part picks one of the exercise's choices
// (by letter, number or text; grade_text.cpp).
#include "grade/exercise_reader.hpp"
#include "grade/grade_parts.hpp"
#include "grade/kinds/kind.hpp"
#include "grade/kinds/typed_line.hpp"

namespace attn::grade {

namespace {

void read_part(detail::exercise_reader& r, const toml::table& t, const exercise& x, part_spec& p, const tolerance&) {
    p.answer = r.rd.string(t, "answer", true).value_or("");
    if (!p.answer.empty() && !is_choice(x, p.answer)) r.rd.fail(t.get("answer"), "'answer' must be one of the exercise's choices");
}

void grade(const exercise& x, const answer_value* answer, const kind_grading& g, exercise_result& r) {
    grade_each_part(x, answer, g, r, [](const exercise& x, const part_spec& p, const answer_value* a, const kind_grading&) {
        return grade_choice_part(x, p, a);
    });
}

std::string placeholder(const exercise& x, const part_spec&) {
    std::string c;
    for (const auto& ch : x.choices) c += (c.empty() ? "" : " | ") + ch;
    return "TODO: one of " + c;
}

std::string solve(const exercise& x, const variant_request&) {
    return solve_each_part(x, [](const exercise& x, const part_spec& p) { return choice_letter(x, p.answer) + p.answer; });
}

}  // namespace

// A declared mistake names a wrong choice (shared with multi).
bool read_choice_mistake(detail::exercise_reader& r, const toml::table& t, const exercise& x, declared_mistake& m) {
    m.answer = r.rd.string(t, "answer", true).value_or("");
    if (!m.answer.empty() && !is_choice(x, m.answer))
        r.rd.fail(t.get("answer"), "a mistake's 'answer' must be one of the exercise's choices");
    return true;
}

const exercise_kind choice_kind{
    "choice",
    "a part picks one of the exercise's choices",
    false, true, false, false,
    read_part, read_choice_mistake, grade, placeholder, solve,
    "Type the letter of a choice (a, b, …) or its number.",
    typed_choice,
};

}  // namespace attn::grade
