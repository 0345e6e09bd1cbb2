// lessons/show_circuits_numbers.hpp — the numbers lessons 24–26's exercises ask, on a
// student's own drawn input (lessons/model_head_inputs.hpp draws it from the course
// secret as lessons 20–22 do): one term of a score's decomposition, a head's direct
// logit attribution to the next token, the repeated half's loss with one head patched
// from the clean run into the corrupted one. Each comes with the catalogued mistakes a
// student makes computing it — a term read from the wrong position, the norm's scale
// forgotten, clean and corrupted swapped, layers and heads counted from 0 — each with
// its own value recomputed the way the mistake computes it, and a readable name
// (never an id on screen). The grader's `circuit` kind (grade/kinds/circuit.cpp) grades
// against these. Every number is model/explain's or model/patching's recipe in float64.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "lessons/model_head_inputs.hpp"

namespace attn::lessons {

// One part's question ([[exercise.part]] of kind circuit; lessons/README.md).
struct circuit_ask {
    std::string quantity;              // score_term | dla | patched_loss
    std::size_t layer = 0, head = 0;   // the head asked, from 0 (score_term: whose score)
    std::size_t query = 0, key = 0;    // score_term: the score's positions; dla: query = the position
    std::string query_side, key_side;  // score_term: components in model/explain's names ("embed", "blocks.0.attn.head.0")
    std::size_t from = 0;              // patched_loss: the first position whose next token counts
    std::size_t shift = 0;             // patched_loss: the corrupted block is the clean one's tokens + shift
};

// A mistake's value on these numbers.
struct circuit_form {
    std::string mistake;      // its id (histograms, JSON): "norm_scale_forgotten"
    std::string name;         // what the student reads: "the norm's scale forgotten"
    std::string explanation;  // why it gives this number, naming the numbers
    double value = 0;
};

struct circuit_answer {
    double value = 0;
    std::vector<circuit_form> mistakes;  // only those that apply here
    std::string how;                     // the worked solution: the command to run and where to read
};

// Throws attn::error for a position outside the input, a key after its query, an
// unknown component, a head the model lacks.
circuit_answer circuit_value(const model_source& m, const std::vector<int>& ids, const circuit_ask& a);

// The corrupted input of a patching question: the clean one with its drawn block's
// tokens each moved up by `shift` (its repeat kept), so nothing earlier can be copied;
// an id past the vocabulary's last wraps round to 1 (0, BOS, is never drawn).
std::vector<int> corrupted_input(const model_source& m, const std::vector<int>& ids, std::size_t shift);

// "BOS, your ten tokens 7 23 …, then the same again: 0 7 23 … (--tokens 0,7,23,…)" and,
// for a patching question, the corrupted input likewise.
std::string circuit_input_words(const model_source& m, const std::vector<int>& ids, std::size_t shift);

// The readable names of the mistakes circuit_value catalogues (lessons/README.md lists them).
const std::vector<std::pair<std::string, std::string>>& circuit_mistake_names();

}  // namespace attn::lessons
