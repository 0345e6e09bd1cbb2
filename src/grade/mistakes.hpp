// grade/mistakes.hpp — the catalogue of conceptual mistakes in computing attention.
// Each one is recomputed from the student's own inputs (through the core, with the
// option a confused student would in effect use), so a wrong answer can be matched
// against it and the feedback can say which mistake it is.
#pragma once

#include <string>
#include <vector>

#include "grade/pipeline.hpp"

namespace attn::grade {

struct mistake_info {
    const char* id;    // stable key for histograms and JSON: "no_scaling"
    const char* name;  // short label: "no scaling"
};

// In matching order: the first catalogued mistake that reproduces an answer is named.
const std::vector<mistake_info>& numeric_mistakes();
const mistake_info* find_mistake(const std::string& id);

// One way a mistake plays out on these inputs (rounding too early has two: 1 and 2 decimals).
struct mistake_candidate {
    std::string id;
    std::string explanation;  // a sentence naming the numbers: "…without dividing by √d_k = 2"
    stage_values stages;
};

// Every catalogued mistake that applies to these inputs (no mask → no mask mistakes;
// self-attention → no "queries from the encoder"; d_k ≠ d_v → no K/V swap ...).
std::vector<mistake_candidate> mistake_candidates(const pipeline_inputs& in);

}  // namespace attn::grade
