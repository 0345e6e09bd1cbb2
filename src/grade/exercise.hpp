// grade/exercise.hpp — exercises as the grader understands them: a lesson's typed
// [[exercise]] (lessons/exercise_decl.hpp, read and checked by the lesson loader) with
// its kind's row and each part's own fields, read by that row (schema for teachers:
// lessons/README.md, "Exercises"). The kinds (numeric, shape, choice, multi, open, circuit) are
// rows of one registry, one file each: grade/kinds/.
#pragma once

#include <string>
#include <vector>

#include "grade/kinds/kind.hpp"
#include "grade/pipeline.hpp"
#include "lessons/lesson.hpp"
#include "lessons/show_circuits_numbers.hpp"

namespace attn::grade {

using lessons::variant_spec;

// A wrong answer the teacher anticipated (shape, choice and multi kinds): when the
// student's answer matches (multi: picks this choice), the feedback names it.
struct declared_mistake : lessons::mistake_decl {
    std::string answer;  // shape or choice text it matches
};

// A part as its kind reads it from the lesson's part (`spec`).
struct part_spec : lessons::part_decl {
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
    // circuit (lessons 24–26): the number asked of the student's own input
    lessons::circuit_ask circuit;
    std::vector<declared_mistake> mistakes;
};

struct exercise : lessons::exercise_decl {
    const exercise_kind* kind = &numeric_kind;  // its row in grade/kinds/ (never null)
    int lesson = 0;
    std::string lesson_title;
    std::vector<part_spec> parts;
    // Lessons 20–22: the exercises on this one's input (same_input_as either way), copied at load;
    // a draw is kept only when all of them tell it apart: drawn once, redrawn together (variant.cpp).
    std::vector<exercise> same_input;

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

}  // namespace attn::grade
