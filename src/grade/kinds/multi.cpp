// grade/kinds/multi.cpp — the multi kind: a part picks every right choice ("select all
// that apply"), graded exactly: ticking everything earns nothing (grade_text.cpp).
#include "grade/exercise_reader.hpp"
#include "grade/grade_parts.hpp"
#include "grade/kinds/kind.hpp"
#include "grade/kinds/typed_line.hpp"

namespace attn::grade {

bool read_choice_mistake(detail::exercise_reader& r, const toml::table& t, const exercise& x, declared_mistake& m);

namespace {

void read_part(detail::exercise_reader& r, const toml::table& t, const exercise& x, part_spec& p, const tolerance&) {
    p.answers = r.rd.strings(t, "answer", true).value_or(std::vector<std::string>{});
    if (t.contains("answer") && p.answers.empty())
        r.rd.fail(t.get("answer"), "'answer' lists the right choices (at least one; the others are wrong picks)");
    for (const auto& a : p.answers)
        if (!is_choice(x, a)) r.rd.fail(t.get("answer"), "'" + a + "' in 'answer' is not one of the exercise's choices");
}

void grade(const exercise& x, const answer_value* answer, const kind_grading& g, exercise_result& r) {
    grade_each_part(x, answer, g, r, [](const exercise& x, const part_spec& p, const answer_value* a, const kind_grading&) {
        return grade_multi_part(x, p, a);
    });
}

std::string placeholder(const exercise&, const part_spec&) {
    return "TODO: every right choice, as a list of letters or texts, e.g. [\"a\", \"c\"]";
}

std::string solve(const exercise& x, const variant_request&) {
    return solve_each_part(x, [](const exercise& x, const part_spec& p) {
        std::string all;
        for (const auto& a : p.answers) all += (all.empty() ? "" : ", ") + choice_letter(x, a) + a;
        return "all of: " + all;
    });
}

}  // namespace

const exercise_kind multi_kind{
    "multi",
    "a part picks every right choice (\"select all that apply\"), graded exactly",
    false, true, true, false,
    read_part, read_choice_mistake, grade, placeholder, solve,
    "Select all that apply: type the letters of every right choice (a c) or their numbers (1 3).",
    typed_picks,
};

}  // namespace attn::grade
