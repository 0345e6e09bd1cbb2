// trace/stage_quantities.hpp — the quantities read off the stages of the vocabulary
// (trace/stages.hpp) that a lesson may ask for on their own: the divisor of the raw
// scores, and the key each query attends to most (from the weights). They are not
// stages (nothing exports them); the grader's exercise parts name them with these words.
#pragma once

namespace attn::trace {

enum class stage_quantity { scale, argmax };
const char* quantity_word(stage_quantity q);  // "scale", "argmax"

}  // namespace attn::trace
