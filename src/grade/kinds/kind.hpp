// grade/kinds/kind.hpp — the registry of exercise kinds: one row per kind (numeric,
// shape, choice, multi, open), each in its own file of this folder, carrying everything
// the rest of attn asks of a kind — how its parts are read from a lesson, graded,
// templated, solved, described and typed at the practice prompt. A new exercise kind is
// one new file here plus one line in registry.cpp; nothing outside this folder switches
// on a kind (the traits below say what a kind is, not which one).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/value_tree.hpp"

namespace attn::io {
struct toml_reader;
}

namespace attn::grade {

struct exercise;
struct part_spec;
struct declared_mistake;
struct exercise_result;
struct part_result;
struct variant_request;
struct exercise_numbers;
class review_table;

// What a kind's grader is handed besides the exercise and the answer.
struct kind_grading {
    const variant_request& request;
    const review_table* reviews;        // open parts' marks; null = none given
    std::vector<std::string>& notes;    // said to the student
    std::vector<std::string>& flags;    // said to the teacher only
};

struct exercise_kind {
    const char* name;         // the `kind` a lesson writes
    const char* description;  // what a part of this kind is (ARCHITECTURE.md, lessons/README.md)
    // Traits: what the kind is, for the code that only needs to know that.
    bool numbers;     // parts are stages computed on the (per-student) numbers of a run
    bool picks;       // parts pick among the exercise's choices
    bool select_all;  // the answer is every right choice
    bool reviewed;    // prose read by the teacher: 0 points until a review gives them
    // Reader: the kind's own fields of a part, from its table p.spec ([[exercise.part]] or
    // the exercise itself); problems through rd.
    void (*read_part)(const io::toml_reader& rd, const exercise& x, part_spec& p);
    // Reader: a declared mistake's `answer` (m.spec); false = the kind has no declared mistakes.
    bool (*read_mistake)(const io::toml_reader& rd, const exercise& x, declared_mistake& m);
    // Grader: every part of one exercise into r.parts (and what the numbers were).
    void (*grade)(const exercise& x, const io::value_node* answer, const kind_grading& g, exercise_result& r);
    // Template line: the "TODO: …" placeholder of a part in an answer file.
    std::string (*placeholder)(const exercise& x, const part_spec& p);
    // Solver: the worked solution of the whole exercise, on the numbers the request gets
    // (the lesson's own or the practice variant). Shown in the lesson when a student asks
    // for it (`s`) or after three wrong tries; never in a class's hand-out.
    std::string (*solve)(const exercise& x, const variant_request& request);
    // Prompt: how to type an answer at the practice prompt ("" = not answered there).
    const char* how_to_type;
    // Reader of one trimmed typed line; nullopt with error set when it cannot be read.
    std::optional<io::value_node> (*read_typed)(const std::string& line, std::size_t n_choices, std::string& error);
    // Lessons 24–26: a kind whose parts are no attention stage but still draw a trained
    // model's input per student ([exercise.variant]): the drawn input in words (show,
    // template, practice), and its own check of a draw (variant_check.hpp: why these
    // tokens are no good, or nullopt). Null for the other kinds.
    std::string (*input_words)(const exercise& x, const variant_request& request);
    std::optional<std::string> (*input_fault)(const exercise& x, const std::vector<int>& tokens);
};

// Every kind, in the order messages list them.
const std::vector<const exercise_kind*>& exercise_kinds();
// The kind a lesson names; null for an unknown name.
const exercise_kind* find_exercise_kind(const std::string& name);
// "numeric, shape, choice, multi or open" (for messages).
std::string exercise_kind_list();

extern const exercise_kind numeric_kind, shape_kind, choice_kind, multi_kind, open_kind, circuit_kind;

// Shared by the rows (registry.cpp).
// "(b) " for the choice text, "" when it is no choice.
std::string choice_letter(const exercise& x, const std::string& answer);
bool is_choice(const exercise& x, const std::string& text);
// "a | b | c", for messages and the template line.
std::string choice_list(const exercise& x);
// "a) first | b) second": lettered, since an answer may be the letter.
std::string lettered_choices(const exercise& x);
// Which choice a text names: the choice itself, its letter, or both ("source", "b",
// "(b) source"), lower case and punctuation aside. Anything else names none.
std::optional<std::size_t> find_choice(const exercise& x, const std::string& text);
// The feedback a wrong pick earns: a declared mistake (named), or the exercise's
// [exercise.feedback] sentence for that choice.
void explain_wrong_pick(const exercise& x, const part_spec& p, const std::string& chosen, part_result& r);
// A declared mistake of choice and multi names a wrong choice.
bool read_choice_mistake(const io::toml_reader& rd, const exercise& x, declared_mistake& m);

// The rows whose parts are graded one by one have grade_each_part<their part grader>
// as their grader, and those whose worked solution is one line per part have
// solve_each_part<their line>. A part grader is handed the part's answer and its result
// already started (start_part); an unanswered part never reaches it.
// The student's numbers as the result names them: personal or practice, the variant code,
// the parameters in words (numeric and circuit both draw their numbers this way).
void take_variant(const exercise_numbers& n, exercise_result& r);

using part_grader = void (*)(const exercise& x, const part_spec& p, const io::value_node& answer, const kind_grading& g,
                             part_result& r);
using solution_line = std::string (*)(const exercise& x, const part_spec& p);
void grade_parts(const exercise& x, const io::value_node* answer, const kind_grading& g, exercise_result& r, part_grader one);
std::string solve_parts(const exercise& x, solution_line line);

template <part_grader one>
void grade_each_part(const exercise& x, const io::value_node* answer, const kind_grading& g, exercise_result& r) {
    grade_parts(x, answer, g, r, one);
}
template <solution_line line>
std::string solve_each_part(const exercise& x, const variant_request&) {
    return solve_parts(x, line);
}

}  // namespace attn::grade
