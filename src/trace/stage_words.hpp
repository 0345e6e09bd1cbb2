// trace/stage_words.hpp — what a hand-out calls each stage or quantity a part asks
// for (stage_title), in the exercise's own names for its inputs. The words themselves
// (a stage's alias, the quantities scale and argmax) are the vocabulary's:
// core/stages.hpp's stage_word. No stage name is spelled anywhere in src/grade
// (tests/python/test_grade_structure.py fails on one), so a stage renamed there is
// renamed for the grader too.
#pragma once

#include <optional>
#include <string>

#include "core/stages.hpp"

namespace attn::trace {

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
