// grade/exercise.cpp — a lesson's exercises read by their kinds (see exercise.hpp).
// Positions come from the parsed file: each declaration's spec points into it (a copy
// would lose them).
#include "grade/exercise.hpp"

#include <optional>

#include "lessons/lesson_loader.hpp"
#include "grade/pipeline.hpp"
#include "io/toml_read.hpp"

namespace attn::grade {

const part_spec* exercise::find_part(const std::string& part_id) const {
    for (const auto& p : parts)
        if (p.id == part_id) return &p;
    return nullptr;
}

const exercise* exercise_set::find(const std::string& id) const {
    for (const auto& e : all)
        if (e.id == id) return &e;
    return nullptr;
}

namespace {

// A part's own fields, read by its kind from the lesson's part.
part_spec read_part(const io::toml_reader& rd, const exercise& x, const lessons::part_decl& d) {
    part_spec p;
    static_cast<lessons::part_decl&>(p) = d;
    x.kind->read_part(rd, x, p);
    for (const lessons::mistake_decl& md : d.declared_mistakes) {
        declared_mistake m;
        static_cast<lessons::mistake_decl&>(m) = md;
        if (x.kind->read_mistake(rd, x, m)) p.mistakes.push_back(m);
    }
    return p;
}

// The lesson's declaration read by its kind, the declaration's problems first: nullopt
// after a problem.
std::optional<exercise> read_exercise(const lessons::lesson& l, const lessons::exercise_decl& d,
                                      std::vector<lessons::diagnostic>& problems) {
    const io::toml_reader rd{l.path, &problems};
    const toml::table& t = *d.spec;
    const std::size_t before = problems.size();
    exercise x;
    static_cast<lessons::exercise_decl&>(x) = d;
    x.lesson = l.number;
    x.lesson_title = l.title;
    x.kind = find_exercise_kind(d.kind_name);
    if (!x.kind) {
        const std::string why_short = " (`short` answers were matched by keywords, which a negated sentence "
                                      "passes: use choice, multi, or open for the teacher to review)";
        rd.fail(t.get("kind"), "'kind' must be " + exercise_kind_list() + ", found '" + d.kind_name + "'" +
                                   (d.kind_name == "short" ? why_short : ""));
        return std::nullopt;  // only this: the rest of the table was written for another kind
    }
    problems.insert(problems.end(), d.problems.begin(), d.problems.end());
    if (x.kind->picks && x.choices.size() < 2)
        rd.fail(&t, std::string("a ") + x.kind->name + " exercise needs 'choices' with at least two entries");
    if (x.kind->numbers && x.numbers != lessons::setup_state::read) {
        if (x.numbers == lessons::setup_state::absent)
            rd.fail(&t, "a numeric exercise needs 'run' (a run of the lesson) or q, k and v (matrix names), "
                        "or student_inputs = true");
        return std::nullopt;
    }
    if (x.kind->input_words && (x.numbers != lessons::setup_state::read || !x.setup.model)) {
        if (x.numbers == lessons::setup_state::absent)
            rd.fail(&t, std::string("a ") + x.kind->name + " exercise needs 'model', 'tokens', 'layer' and 'head'");
        return std::nullopt;
    }
    if (x.variant.enabled && ((!x.kind->numbers && !x.kind->input_words) || x.setup.student_inputs))
        rd.fail(t.get("variant"), "only numeric exercises on lesson numbers (and circuit ones) have per-student variants");
    for (const auto& pd : d.declared_parts) x.parts.push_back(read_part(rd, x, pd));
    if (problems.size() != before) return std::nullopt;
    return x;
}

}  // namespace

std::vector<exercise> read_exercises(const lessons::lesson& l, std::vector<lessons::diagnostic>& problems) {
    std::vector<exercise> out;
    for (const auto& decl : l.exercises)  // decl.spec points into the parsed file: positions kept
        if (auto x = read_exercise(l, decl, problems)) out.push_back(std::move(*x));
    return out;
}

// Each same_input_as pair learns of the other (exercise::same_input).
static void link_same_inputs(exercise_set& set) {
    const std::vector<exercise> alone = set.all;  // copies without partners: no list holds itself
    for (std::size_t i = 0; i < alone.size(); ++i)
        for (std::size_t j = 0; j < alone.size(); ++j)
            if (i != j && alone[i].setup.model && alone[j].setup.model && alone[i].setup.model->same_input_as == alone[j].id) {
                set.all[i].same_input.push_back(alone[j]);
                set.all[j].same_input.push_back(alone[i]);
            }
}

exercise_set load_exercise_set(const std::string& lessons_dir) {
    exercise_set set;
    std::vector<lessons::diagnostic> problems;
    for (const auto& path : lessons::lesson_paths(lessons_dir)) {  // each lesson parsed once
        try {
            const lessons::lesson l = lessons::load_lesson(path);
            for (auto& x : read_exercises(l, problems)) {
                if (set.find(x.id)) {
                    problems.push_back({x.where, "exercise id '" + x.id + "' is also used by another lesson"});
                    continue;
                }
                set.all.push_back(std::move(x));
            }
        } catch (const lessons::lesson_error& e) {
            for (const auto& p : e.problems) problems.push_back(p);
        }
    }
    link_same_inputs(set);
    if (!problems.empty()) throw lessons::lesson_error(problems);
    return set;
}

}  // namespace attn::grade
