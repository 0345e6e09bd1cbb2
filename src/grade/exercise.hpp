// grade/exercise.hpp — exercises as the grader understands them, read from the
// [[exercise]] tables of the lesson files (schema for teachers: lessons/README.md,
// "Exercises"). Reading checks every field and reports problems as file:line:col.
// The kinds (numeric, shape, choice, multi, open) are rows of one registry, one file
// each: grade/kinds/.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "grade/kinds/kind.hpp"
#include "grade/pipeline.hpp"
#include "core/tolerance.hpp"
#include "lessons/lesson.hpp"
#include "lessons/model_head_inputs.hpp"
#include "trace/stages.hpp"

namespace attn::grade {

// A wrong answer the teacher anticipated (shape, choice and multi kinds): when the
// student's answer matches (multi: picks this choice), the feedback names it.
struct declared_mistake {
    std::string id;        // "self-instead-of-cross" (histogram key)
    std::string answer;    // shape or choice text it matches
    std::string feedback;
};

struct part_spec {
    std::string id;      // the key in the answer file
    std::string prompt;  // optional, shown under the exercise prompt
    double points = 0.0;
    lessons::source_pos where;
    // numeric
    std::string stage;                      // raw | scaled | masked | weights | output | scale | argmax | q | k | v
    std::vector<std::size_t> rows, cols;    // empty = all of them
    tolerance tol;
    // shape / choice
    std::string answer;
    // multi: every right choice (the others are wrong picks)
    std::vector<std::string> answers;
    // open: what the teacher looks for (in the review sheet, never in the student's feedback)
    std::string rubric;
    std::vector<declared_mistake> mistakes;
};

// The rows or columns a part asks for: `picked`, or every index below n when it names none.
std::vector<std::size_t> all_or(const std::vector<std::size_t>& picked, std::size_t n);

// How per-student numbers are drawn (project PRNG, seed from secret + student + exercise).
struct variant_spec {
    bool enabled = false;
    std::vector<std::string> vary;  // roles: q, k, v, encoder_q
    std::string values = "halves";  // halves: k/2 in [lo, hi]; integers: [lo, hi]
    double lo = -2.0, hi = 2.0;
    bool tie = false;               // every varied role gets the first one's numbers (Q = K = V = X)
    std::string describe() const;   // "q, k, v: halves in [-2, 2]"
};

// Where a numeric exercise's numbers come from (the lesson's own, before variants): the
// pipeline's inputs and options (q, k, v [n_q, d_k], [n_k, d_k], [n_k, d_v], mask,
// scale, …) as the lesson defines them, named as the lesson's run names them.
struct numeric_setup : pipeline_inputs, trace::run_labels {
    std::string run;                     // lesson run it starts from ("" when q/k/v are named)
    std::string run_kind = "self";       // self | causal | cross (for the diagnosis wording)
    bool student_inputs = false;         // the student chooses Q, K, V (graded for self-consistency)
    std::map<std::string, std::array<std::size_t, 2>> input_shapes;  // with student_inputs
    std::optional<lessons::model_source> model;  // lessons 20–22: a trained head (lessons/model_head_inputs.hpp)
};

struct exercise {
    std::string id;
    const exercise_kind* kind = &numeric_kind;  // its row in grade/kinds/ (never null)
    std::string title;
    std::string prompt;
    std::string hint;    // shown after a wrong try in the lesson (`a` at the step prompt); "" = none
    double points = 0.0;
    int lesson = 0;
    std::string lesson_title;
    std::vector<std::string> choices;
    std::map<std::string, std::string> choice_feedback;  // choice text → why it is wrong
    std::vector<part_spec> parts;
    numeric_setup setup;
    variant_spec variant;
    lessons::source_pos where;

    const part_spec* find_part(const std::string& part_id) const;
};

// Every exercise of one loaded lesson; problems are appended (file:line:col).
std::vector<exercise> read_exercises(const lessons::lesson& l, std::vector<lessons::diagnostic>& problems);

struct exercise_set {
    std::vector<exercise> all;  // lesson order, then file order
    const exercise* find(const std::string& id) const;
};

// Every exercise of every lesson in dir. Throws lessons::lesson_error listing every problem.
exercise_set load_exercise_set(const std::string& lessons_dir);

// The stages a numeric part may name, for messages.
const std::vector<std::string>& numeric_stage_names();

}  // namespace attn::grade
