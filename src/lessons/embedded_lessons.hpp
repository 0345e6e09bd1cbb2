// lessons/embedded_lessons.hpp — the lesson files built into attn at build time
// (cmake/AttnEmbedLessons.cmake generates the definition from lessons/*.toml), so a
// copied or installed binary has its lessons without the source tree.
#pragma once

#include <string_view>
#include <vector>

namespace attn::lessons {

struct embedded_file {
    std::string_view name;  // "04-cross-attention.toml"
    std::string_view text;  // the file's bytes, as in the repository
};

// Sorted by name.
const std::vector<embedded_file>& embedded_lessons();

// examples/trace/*.toml with every input inline ("cat-window.toml"), sorted by name:
// `attn examples` and `attn trace --example NAME` (cli/examples.cpp).
const std::vector<embedded_file>& embedded_examples();

// lessons/models/*.safetensors ("sort.safetensors"), sorted by name: the checkpoints
// of lessons 20–22, read by lessons/trained_models.hpp.
const std::vector<embedded_file>& embedded_models();

}  // namespace attn::lessons
