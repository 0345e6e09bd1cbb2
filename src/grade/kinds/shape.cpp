// grade/kinds/shape.cpp — the shape kind: a part is a symbolic shape ("B × n_tgt × d_q"),
// right when it names the same dimensions in the same order (grade_text.cpp).
#include "core/shapes.hpp"
#include "grade/exercise_reader.hpp"
#include "grade/grade_parts.hpp"
#include "grade/kinds/kind.hpp"
#include "grade/kinds/typed_line.hpp"

namespace attn::grade {

namespace {

void read_part(detail::exercise_reader& r, const toml::table& t, const exercise&, part_spec& p, const tolerance&) {
    p.answer = r.rd.string(t, "answer", true).value_or("");
    r.check_shape(t.get("answer"), p.answer);
}

bool read_mistake(detail::exercise_reader& r, const toml::table& t, const exercise&, declared_mistake& m) {
    m.answer = r.rd.string(t, "answer", true).value_or("");
    r.check_shape(t.get("answer"), m.answer);
    return true;
}

void grade(const exercise& x, const answer_value* answer, const kind_grading& g, exercise_result& r) {
    grade_each_part(x, answer, g, r, [](const exercise& x, const part_spec& p, const answer_value* a, const kind_grading&) {
        return grade_shape_part(x, p, a);
    });
}

std::string placeholder(const exercise&, const part_spec&) { return "TODO: a shape such as \"B × n × d\""; }

std::string solve(const exercise& x, const variant_request&) {
    return solve_each_part(x, [](const exercise&, const part_spec& p) { return p.answer; });
}

}  // namespace

const exercise_kind shape_kind{
    "shape",
    "a part is a symbolic shape (\"B × n_tgt × d_q\")",
    false, false, false, false,
    read_part, read_mistake, grade, placeholder, solve,
    "Type a shape: [5, 4] or 5 × 4 (names work too: B × n × d_k).",
    typed_shape,
};

}  // namespace attn::grade
