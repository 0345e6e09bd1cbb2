// lessons/counting.hpp — how lessons count what they show: layers and heads from 1
// ("layer 1, head 1" is a checkpoint's blocks.0 head 0), positions from 0 (lesson 01).
// A lesson file names a trained head as the checkpoint and `attn model` do (`layer = 0`,
// `head = 0`, counted from 0); what the student reads on screen is made here, so every
// model lesson (20, 21, 22) says it the same way. Names such as blocks.0.attn.hook_pattern
// are names, not counts: they stay as they are, and are never a lesson's label.
#pragma once

#include <cstddef>
#include <string>

#include "trace/stages.hpp"

namespace attn::lessons {

// "Layer 1, head 1" (capital) or "layer 1, head 1" for the checkpoint's blocks.`layer`
// head `head`, both counted from 0 there.
inline std::string head_label(std::size_t layer, std::size_t head, bool capital = true) {
    return std::string(capital ? "Layer " : "layer ") + std::to_string(layer + 1) + ", head " + std::to_string(head + 1);
}

// "₁₂" for position 12 ("2₁₂"): the tracer's (trace/stages.hpp), so equal tokens stay
// apart in a model lesson's rows and columns as in every trace.
using trace::position_subscript;

}  // namespace attn::lessons
