// lessons/model_head_inputs.hpp — one trained head as an exercise's numbers (lessons
// 20–22): the q, k and v of head `head` of layer `layer` (from 0, as in the
// checkpoint) of a built-in model on a token sequence, so the grader treats a trained
// head like any causal attention run of lessons 01–19. Also what per-student variants
// need: the sequence drawn (its first `drawn` tokens) and continued as the lesson's is
// (the model's own greedy answer, or the block repeated), and the heads a student may
// read instead — the layer and head counted from 0, the same head in the other
// checkpoints of the training run (sort → sort-100, sort-500) — which the grader's
// catalogue names (grade/mistakes.cpp: head_counted_from_0, other_checkpoint).
// The exercise keys are read by lessons/model_source_reader.hpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace attn {
class prng;
}

namespace attn::lessons {

// An exercise's `model`, `tokens`, `layer`, `head` and its variant's `drawn`, `then`,
// `same_input_as` (lessons/README.md, "numeric on a trained model").
struct model_source {
    std::string model;                // built-in checkpoint ("sort", "sort-100")
    std::vector<int> tokens;          // [P] the lesson's sequence
    std::size_t layer = 0, head = 0;  // from 0, as in the checkpoint ("layer 1, head 1" on screen)
    std::size_t keep = 0;             // a variant keeps the lesson's first `keep` tokens (BOS) …
    std::size_t drawn = 0;            // … draws the next `drawn` tokens (0 = all the rest) …
    std::string then = "greedy";      // … and continues them: greedy | repeat | none
    std::string same_input_as;        // another exercise's id: drawn under its seed (one input, two heads)
};

// Another head on the same input, as a catalogued mistake's numbers.
struct other_head {
    std::string mistake;      // its id in the grader's catalogue
    std::string explanation;  // "layer 2, head 2 read instead of layer 1, head 1: …"
    matrix q, k, v;           // [P, d_head] each
    bool unrotated = false;   // attended without turning q and k (lesson 23's rotation_skipped)
};

struct head_numbers {
    matrix q, k, v;                   // [P, d_head] the head's own (biases added: hook_q/k/v)
    bool_matrix attend;               // [P, P] causal
    std::vector<std::string> labels;  // [P] "2₅": the token and its position
    std::vector<std::string> positions;  // [P] "0", "1", …: the same whatever the input (a part's rows)
    std::vector<other_head> others;
    std::optional<double> rope_base;  // rotary (adjacent pairs): q and k are before the rotation, the student turns them
};

// Throws attn::error for an unknown model, a token outside the vocabulary, a sequence
// longer than the model's positions. keep: remember the result for the next call on the
// same head and ids (a bounded cache shared by threads; worth it when inputs repeat, as
// lessons 20 and 22's 729 do; lesson 21 draws a new input for every student).
head_numbers model_head_numbers(const model_source& m, const std::vector<int>& ids, bool keep = true);

// A variant's sequence: the lesson's first `keep` tokens, `drawn` tokens from rng in
// [lo, hi], then continued.
std::vector<int> draw_model_input(const model_source& m, prng& rng, double lo, double hi);

// "Layer 1, head 1 of the sort model after 2,000 training steps, on the sequence …"
std::string model_numbers_words(const model_source& m, const std::vector<int>& ids);

// The built-in model's layers, heads per layer, vocabulary and positions (throws for an unknown one).
std::size_t model_layers(const std::string& model);
std::size_t model_positions(const std::string& model);
std::size_t model_heads(const std::string& model);
std::size_t model_vocab(const std::string& model);

}  // namespace attn::lessons
