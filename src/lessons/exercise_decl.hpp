// lessons/exercise_decl.hpp — an [[exercise]] of a lesson as the loader reads it
// (lessons/README.md, "Exercises"): what every kind shares (title, hint, points, the
// choices' feedback, its parts and how they share the points) and where its numbers
// come from (lessons/exercise_numbers.hpp). Each kind's own fields (a part's stage,
// answer, answers, rubric, a declared mistake's answer) are read by its row in
// grade/kinds/ from the tables kept here: this floor never switches on a kind.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "core/tolerance.hpp"
#include "io/toml_read.hpp"
#include "lessons/exercise_numbers.hpp"

namespace attn::lessons {

// A wrong answer the teacher anticipated ([[exercise.part.mistake]]): its kind reads
// what it matches from `spec`.
struct mistake_decl {
    std::string id;        // "self-instead-of-cross" (histogram key)
    std::string feedback;
    const toml::table* spec = nullptr;
};

// One [[exercise.part]], or the exercise itself as its one part "answer".
struct part_decl {
    std::string id;      // the key in the answer file
    std::string prompt;  // optional, shown under the exercise prompt
    double points = 0.0;
    io::source_pos where;
    const toml::table* spec = nullptr;
    std::vector<mistake_decl> declared_mistakes;
};

// What the exercise says of its numbers: no key names them, they were read, or a
// problem was reported.
enum class setup_state { absent, read, broken };

struct exercise_decl {
    std::string id;         // "04-weights-the"
    std::string kind_name;  // its row in grade/kinds/: "numeric", "shape", "choice", "multi", "open"
    std::string prompt;     // shown at the end of the lesson
    std::vector<std::string> choices;
    std::string title;
    std::string hint;  // shown after a wrong try in the lesson (`a` at the step prompt); "" = none
    double points = 0.0;
    std::map<std::string, std::string> choice_feedback;  // choice text → why it is wrong
    tolerance tol;                                       // rtol, atol: the default of its parts
    std::vector<part_decl> declared_parts;
    numeric_setup setup;
    setup_state numbers = setup_state::absent;
    variant_spec variant;  // enabled when [exercise.variant] is there (read on numbers of the lesson)
    // The table in the parsed file (aliasing the lesson's document: a copied toml++
    // node forgets its line and column); the parts' and mistakes' tables point into it.
    std::shared_ptr<const toml::table> spec;
    io::source_pos where;
    std::vector<io::toml_problem> problems;  // this exercise's own: the lesson still loads
};

// The tolerance `t` sets with rtol and atol over `base`.
tolerance read_tolerance(const io::toml_reader& rd, const toml::table& t, tolerance base);

}  // namespace attn::lessons
