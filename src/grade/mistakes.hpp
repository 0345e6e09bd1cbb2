// grade/mistakes.hpp — the catalogue of conceptual mistakes in computing attention,
// one record per mistake in one registry (mistakes.cpp): its id, its name, when it
// applies, the first stage it changes, and how to compute it from the student's own
// inputs (through the core, with the option a confused student would in effect use).
// A wrong answer is matched against every form of every mistake that applies, and the
// feedback names the first that reproduces it. lessons/README.md documents every id
// (a test checks that, and that tests/fixtures/grade has a fixture per id).
#pragma once

#include <string>
#include <vector>

#include "grade/pipeline.hpp"

namespace attn::grade {

struct mistake_record;

// One way a mistake plays out on these inputs (rounding too early has four forms).
struct mistake_candidate {
    std::string explanation;  // a sentence naming the numbers: "…without dividing by √d_k = 2"
    stage_values stages;
    const mistake_record* record = nullptr;  // whose form it is (mistake_candidates sets it)
};
using mistake_forms = std::vector<mistake_candidate>;

struct mistake_record {
    const char* id;           // stable key for histograms and JSON: "no_scaling"
    const char* name;         // short label: "no scaling"
    const char* applies;      // when it applies, for teachers (lessons/README.md)
    const char* first_stage;  // raw | scaled | masked | weights | output: earlier stages are unchanged
    // How the variant generator treats a draw on which this mistake gives the right
    // answer within the tolerance (variant_check.hpp):
    //   structural   redraw, unless it is exactly right (then it changes nothing here:
    //                no scaling on a row with one visible key ...)
    //   coincidence  redraw even when exactly right: it changes which numbers are used
    //                (Q from the encoder, K for V), so equality is a coincidence of the draw
    //   tolerance    never redraw: a rounding that moves no answer beyond the tolerance is harmless
    enum class redraw { structural, coincidence, tolerance } rule;
    // The query rows it changes (nullptr: every row).
    std::vector<bool> (*rows)(const pipeline_inputs& in, const stage_values& right);
    // Appends this mistake's forms for these inputs; nothing when it does not apply.
    void (*compute)(const pipeline_inputs& in, const stage_values& right, mistake_forms& out);
};

// In matching order: the first catalogued mistake that reproduces an answer is named.
const std::vector<mistake_record>& mistake_catalogue();
// Lessons 20–22: before record m reads them, the model's other heads and √d_model into in.other_heads.
void add_model_mistake_heads(const mistake_record& m, const lessons::model_source& source, pipeline_inputs& in);
const mistake_record* find_mistake(const std::string& id);

// Every form of every catalogued mistake that applies to these inputs, given their
// right values.
mistake_forms mistake_candidates(const pipeline_inputs& in, const stage_values& right);

// Order of the stages of one computation (raw 0 … output 4); -1 for other parts.
int stage_rank(const std::string& stage);

// The rows of weights that do not sum to 1 (nor to 0 for a query that sees no key),
// within tol: the property behind "rows not summing to 1" when no computed form matches.
bool rows_not_normalised(const matrix& weights, double tol);

}  // namespace attn::grade
