// lessons/lesson.hpp — a lesson as loaded from lessons/NN-name.toml.
// The file is data (narrative, tokens, matrices, attention runs, steps to show,
// exercises); this struct is that data after checking, with every run computed.
// The file format is documented for teachers in lessons/README.md.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "core/attention.hpp"
#include "core/recipe.hpp"
#include "io/input_error.hpp"
#include "io/toml_read.hpp"
#include "lessons/exercise_decl.hpp"
#include "trace/stages.hpp"

namespace attn::lessons {

// Multi-head runs, blocks, decoding sessions and stacked layers a lesson computed
// ([blocks.X] tables): defined in lessons/lesson_parts.hpp, used by the show kinds.
struct lesson_parts;

// Where something is in a lesson file; line/column 0 when unknown. One type for
// every format (io/input_error.hpp).
using io::source_pos;

// One problem found in a lesson file; read with the one TOML reader family
// (io/toml_read.hpp), whose names the lesson code uses unqualified.
using diagnostic = io::toml_problem;
using io::toml_reader;
using io::did_you_mean;
using io::hint_suffix;

// Thrown when a lesson cannot be loaded; holds every problem found, not only the first.
struct lesson_error : error {
    std::vector<diagnostic> problems;
    explicit lesson_error(std::vector<diagnostic> p);
};

// One computed attention run: its inputs' names, its steps and its labels.
struct attention_run {
    std::string name;
    std::string kind;  // "self" | "causal" | "cross"
    attention_steps steps;
    attention_options options;  // what it was computed with (bias, masked_fill, scale): the grader reads them here
    trace::run_labels labels;
};

// A show item's recomputation of a run through attention's recipe (core/recipe.hpp):
// the run's q, k, v with its mask (when it blocks anything) and its divisor; the
// item adds the option it shows (rope, tile, backward, a window in the mask).
recipe_options recipe_of_run(const attention_run& run);

// One thing a step shows (a table, a trace, a comparison ...). The table stays
// the raw TOML so a new show kind needs no change to the loader's data model.
struct show_item {
    std::string kind;
    std::shared_ptr<const toml::table> spec;
    source_pos where;
};

struct step {
    std::string title;
    std::string text;
    std::vector<show_item> show;
    source_pos where;
};

struct lesson {
    std::string path;
    int number = 0;
    std::string title;
    std::string summary;
    std::vector<std::string> seeds;
    std::string intro;
    std::vector<std::string> recap;  // 3–5 takeaways, printed after the last step
    std::map<std::string, std::vector<std::string>> tokens;
    std::map<std::string, matrix> matrices;  // inputs and derived matrices by name
    std::map<std::string, attention_run> runs;
    std::vector<std::string> run_order;       // as declared
    std::string primary_run;                  // what `--token` traces
    std::vector<step> steps;
    std::vector<exercise_decl> exercises;     // lessons/exercise_decl.hpp
    std::shared_ptr<const toml::table> document;  // the whole file, for extensions
    std::shared_ptr<lesson_parts> parts;          // [blocks.X] results (lessons/lesson_parts.hpp)
};

}  // namespace attn::lessons
