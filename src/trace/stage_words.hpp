// trace/stage_words.hpp — the stage vocabulary's words as strings, for code that
// compares or prints them (the grader's exercise parts name stages this way): a
// stage's `alias` from the table in trace/stages.cpp, and the quantities read off the
// stages that a lesson may ask for on their own — the divisor of the raw scores and the
// key each query attends to most; and what a hand-out calls each (stage_title). The
// quantities are not stages (nothing exports them). No stage name is spelled anywhere
// in src/grade (tests/python/test_grade_structure.py fails on one), so a stage renamed
// here is renamed for the grader too.
#pragma once

#include <optional>
#include <string>

#include "trace/stages.hpp"

namespace attn::trace {

enum class stage_quantity { scale, argmax };
const char* quantity_word(stage_quantity q);  // "scale", "argmax"

namespace stage_word {

const std::string& of(stage s);           // its alias: "weights"
const std::string& of(stage_quantity q);  // "scale", "argmax"

inline const std::string& q() { return of(stage::q); }
inline const std::string& k() { return of(stage::k); }
inline const std::string& v() { return of(stage::v); }
inline const std::string& raw() { return of(stage::scores_raw); }
inline const std::string& scaled() { return of(stage::scores_scaled); }
inline const std::string& masked() { return of(stage::scores_masked); }
inline const std::string& weights() { return of(stage::weights); }
inline const std::string& output() { return of(stage::z); }
inline const std::string& rot_q() { return of(stage::rot_q); }
inline const std::string& rot_k() { return of(stage::rot_k); }
inline const std::string& running_max() { return of(stage::tiled_running_max); }
inline const std::string& running_sum() { return of(stage::tiled_running_sum); }
inline const std::string& grad_v() { return of(stage::grad_v); }
inline const std::string& grad_weights() { return of(stage::grad_pattern); }
inline const std::string& grad_scores() { return of(stage::grad_attn_scores); }
inline const std::string& grad_q() { return of(stage::grad_q); }
inline const std::string& grad_k() { return of(stage::grad_k); }
inline const std::string& scale() { return of(stage_quantity::scale); }
inline const std::string& argmax() { return of(stage_quantity::argmax); }

// q, k or v: the attention's inputs (the ones a student may choose in an exercise).
inline bool is_input(const std::string& s) { return s == q() || s == k() || s == v(); }

}  // namespace stage_word

// What a hand-out calls the stage or quantity a part asks for, in the exercise's own
// names for its inputs: "raw scores Q_dec K_encᵀ", "output (weights · V)", "your own
// Q", "dQ". Nullopt for a word that names no stage a part may ask for.
struct title_names {
    std::string q, k, v;          // "Q", or the lesson's "Q_dec"
    std::optional<double> scale;  // the lesson's divisor; none = √d_k
    bool softmax = true;
};
std::optional<std::string> stage_title(const std::string& word, const title_names& names);

}  // namespace attn::trace
