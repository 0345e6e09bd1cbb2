// grade/kinds/multi.cpp — the multi kind: a part picks every right choice ("select all
// that apply"), graded exactly: ticking everything earns nothing and names nothing.
#include <algorithm>

#include "grade/grader.hpp"
#include "grade/kinds/kind.hpp"
#include "io/typed_line.hpp"
#include "io/toml_read.hpp"

namespace attn::grade {

namespace {

void read_part(const io::toml_reader& rd, const exercise& x, part_spec& p) {
    const toml::table& t = *p.spec;
    p.answers = rd.strings(t, "answer", true).value_or(std::vector<std::string>{});
    if (t.contains("answer") && p.answers.empty())
        rd.fail(t.get("answer"), "'answer' lists the right choices (at least one; the others are wrong picks)");
    for (const auto& a : p.answers)
        if (!is_choice(x, a)) rd.fail(t.get("answer"), "'" + a + "' in 'answer' is not one of the exercise's choices");
}

void grade_part(const exercise& x, const part_spec& p, const io::value_node& a, const kind_grading&, part_result& r) {
    // ["a", "c"] or the choices' texts; one string is one pick.
    std::vector<bool> picked(x.choices.size(), false);
    for (std::size_t i = 0; i < a.length(); ++i) {  // a packed array of numbers too (io/value_tree)
        const io::value_node e = a.entry_at(i);
        const auto text = io::value_text(e);
        const auto pick = text ? find_choice(x, *text) : std::nullopt;
        if (!pick) {
            r.status = part_status::invalid;
            r.feedback = e.where.str() + ": " + (text ? "\"" + *text + "\" is" : type_name(e) + " is") +
                         " not one of the choices (" + choice_list(x) + "); answer with a list such as [\"a\", \"c\"]";
            return;
        }
        picked[*pick] = true;
    }
    // Exact: every right choice picked and no other. Partial credit per choice would pay
    // for "pick everything".
    std::size_t missed = 0;
    std::vector<std::string> wrong;
    for (std::size_t i = 0; i < x.choices.size(); ++i) {
        const bool right = std::count(p.answers.begin(), p.answers.end(), x.choices[i]) > 0;
        if (right && !picked[i]) ++missed;
        if (!right && picked[i]) wrong.push_back(x.choices[i]);
    }
    if (missed == 0 && wrong.empty()) {
        r.status = part_status::correct;
        r.score = r.max;
        r.feedback = "correct: every right choice and no other";
        return;
    }
    r.status = part_status::wrong;
    if (std::count(picked.begin(), picked.end(), true) == static_cast<std::ptrdiff_t>(picked.size()) && picked.size() > 1) {
        // Ticking everything earns nothing and names nothing: "not b; not d" would hand
        // the student the answer as its complement.
        r.feedback = "every choice is picked: no credit, and no choice is named right or wrong (pick only the ones you mean)";
        return;
    }
    for (const auto& w : wrong) {
        r.feedback += (r.feedback.empty() ? "" : "; ") + std::string("not ") + w;
        explain_wrong_pick(x, p, w, r);  // the teacher's explanation may name a right choice
    }
    if (missed)
        r.feedback += (r.feedback.empty() ? "" : "; ") + std::to_string(missed) + " right choice" +
                      (missed > 1 ? "s" : "") + " not picked";
}

std::string placeholder(const exercise&, const part_spec&) {
    return "TODO: every right choice, as a list of letters or texts, e.g. [\"a\", \"c\"]";
}

std::string solution(const exercise& x, const part_spec& p) {
    std::string all;
    for (const auto& a : p.answers) all += (all.empty() ? "" : ", ") + choice_letter(x, a) + a;
    return "all of: " + all;
}

}  // namespace

const exercise_kind multi_kind{
    "multi",
    "a part picks every right choice (\"select all that apply\"), graded exactly",
    false, true, true, false,
    read_part, read_choice_mistake, grade_each_part<grade_part>, placeholder, solve_each_part<solution>,
    "Select all that apply: type the letters of every right choice (a c) or their numbers (1 3).",
    io::typed_picks,
    nullptr, nullptr,
};

}  // namespace attn::grade
