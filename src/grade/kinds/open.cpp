// grade/kinds/open.cpp — the open kind: a part is prose read by the teacher, 0 points
// until a review gives them (grade/reviews.hpp). No text is ever scored by keywords: a
// negated sentence contains the same words as a right one.
#include "grade/grader.hpp"
#include "grade/kinds/kind.hpp"
#include "io/typed_line.hpp"
#include "grade/reviews.hpp"
#include "io/toml_read.hpp"

namespace attn::grade {

namespace {

void read_part(const io::toml_reader& rd, const exercise&, part_spec& p) {
    p.rubric = rd.string(*p.spec, "rubric", false).value_or("");
}

bool read_mistake(const io::toml_reader& rd, const exercise&, declared_mistake& m) {
    rd.fail(m.spec, "an open exercise has no declared mistakes: the teacher's review gives the points");
    return false;
}

std::string placeholder(const exercise&, const part_spec&) { return "TODO: your answer in a few sentences (read by your teacher)"; }

// The teacher's rubric is never shown to a student.
std::string solution(const exercise&, const part_spec&) {
    return "(an open answer, read by your teacher: no worked solution here)";
}

}  // namespace

const exercise_kind open_kind{
    "open",
    "a part is prose read by the teacher: 0 points until a review gives them",
    false, false, false, true,
    read_part, read_mistake, grade_each_part<grade_open_part>, placeholder, solve_each_part<solution>,
    "",
    io::typed_text,
    nullptr, nullptr,
};

}  // namespace attn::grade
