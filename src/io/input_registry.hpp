// io/input_registry.hpp — the files this run has read (or tried to read). The input
// reader registers each one; the output writer refuses to write to any path that is,
// or resolves to (same device and inode, or the same canonical path), one of them.
#pragma once

#include <optional>
#include <string>

namespace attn::io {

// Records `path` as an input of this run (identity taken now, by stat and realpath).
void register_input(const std::string& path);

// The registered input that `path` is or resolves to, as it was registered; nothing
// when `path` is not one of this run's inputs.
std::optional<std::string> input_matching(const std::string& path);

// Forgets every registered input (tests that run several "runs" in one process).
void clear_inputs();

}  // namespace attn::io
