// grade/stage_words.hpp — the grader's words for the stages an exercise part names,
// every one taken from the tracer's stage vocabulary (trace/stages.hpp: a stage's
// `alias`, or one of the quantities read off them, trace/stage_quantities.hpp). No
// stage name is spelled anywhere in src/grade (tests/python/test_grade_structure.py
// fails on one), so a stage renamed in the vocabulary is renamed for the grader too.
#pragma once

#include <string>

#include "trace/stage_quantities.hpp"
#include "trace/stages.hpp"

namespace attn::grade::stage_word {

const std::string& of(trace::stage s);            // its alias: "weights"
const std::string& of(trace::stage_quantity q);   // "scale", "argmax"

inline const std::string& q() { return of(trace::stage::q); }
inline const std::string& k() { return of(trace::stage::k); }
inline const std::string& v() { return of(trace::stage::v); }
inline const std::string& raw() { return of(trace::stage::scores_raw); }
inline const std::string& scaled() { return of(trace::stage::scores_scaled); }
inline const std::string& masked() { return of(trace::stage::scores_masked); }
inline const std::string& weights() { return of(trace::stage::weights); }
inline const std::string& output() { return of(trace::stage::z); }
inline const std::string& rot_q() { return of(trace::stage::rot_q); }
inline const std::string& rot_k() { return of(trace::stage::rot_k); }
inline const std::string& running_max() { return of(trace::stage::tiled_running_max); }
inline const std::string& running_sum() { return of(trace::stage::tiled_running_sum); }
inline const std::string& grad_v() { return of(trace::stage::grad_v); }
inline const std::string& grad_weights() { return of(trace::stage::grad_pattern); }
inline const std::string& grad_scores() { return of(trace::stage::grad_attn_scores); }
inline const std::string& grad_q() { return of(trace::stage::grad_q); }
inline const std::string& grad_k() { return of(trace::stage::grad_k); }
inline const std::string& scale() { return of(trace::stage_quantity::scale); }
inline const std::string& argmax() { return of(trace::stage_quantity::argmax); }

// q, k or v: the inputs a student may choose (student_inputs).
inline bool is_input(const std::string& s) { return s == q() || s == k() || s == v(); }

}  // namespace attn::grade::stage_word
