// grade/kinds/choice.cpp — the choice kind: a part picks one of the exercise's choices
// (by letter, number or text); a wrong pick earns the declared mistake's or the
// exercise's sentence for that choice.
#include "grade/grader.hpp"
#include "grade/kinds/kind.hpp"
#include "io/typed_line.hpp"
#include "io/toml_read.hpp"

namespace attn::grade {

namespace {

void read_part(const io::toml_reader& rd, const exercise& x, part_spec& p) {
    p.answer = rd.string(*p.spec, "answer", true).value_or("");
    if (!p.answer.empty() && !is_choice(x, p.answer))
        rd.fail(p.spec->get("answer"), "'answer' must be one of the exercise's choices");
}

void grade_part(const exercise& x, const part_spec& p, const io::value_node& a, const kind_grading&, part_result& r) {
    auto text = io::value_text(a);
    const std::optional<std::size_t> pick = text ? find_choice(x, *text) : std::nullopt;
    if (!pick) {
        r.status = part_status::invalid;
        r.feedback = a.where.str() + ": " + (text ? "\"" + *text + "\" is not one of " : "expected one of ");
        r.feedback.full_only("the choices (" + choice_list(x) + ")");
        r.feedback.mistakes_only("the exercise's choices");
        if (!text) r.feedback += ", found " + type_name(a);
        return;
    }
    const std::string& chosen = x.choices[*pick];
    if (chosen == p.answer) {
        r.status = part_status::correct;
        r.score = r.max;
        r.feedback = "correct: " + chosen;
        return;
    }
    r.status = part_status::wrong;
    r.feedback = "not " + chosen;  // the teacher's explanation below may name the right choice: full only
    explain_wrong_pick(x, p, chosen, r);
}

std::string placeholder(const exercise& x, const part_spec&) { return "TODO: one of " + choice_list(x); }

std::string solution(const exercise& x, const part_spec& p) { return choice_letter(x, p.answer) + p.answer; }

}  // namespace

bool read_choice_mistake(const io::toml_reader& rd, const exercise& x, declared_mistake& m) {
    m.answer = rd.string(*m.spec, "answer", true).value_or("");
    if (!m.answer.empty() && !is_choice(x, m.answer))
        rd.fail(m.spec->get("answer"), "a mistake's 'answer' must be one of the exercise's choices");
    return true;
}

const exercise_kind choice_kind{
    "choice",
    "a part picks one of the exercise's choices",
    false, true, false, false,
    read_part, read_choice_mistake, grade_each_part<grade_part>, placeholder, solve_each_part<solution>,
    "Type the letter of a choice (a, b, …) or its number.",
    io::typed_choice,
    nullptr, nullptr,
};

}  // namespace attn::grade
