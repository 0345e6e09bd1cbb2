// cli/examples.hpp — the trace examples built into attn (examples/trace/*.toml with
// every input inline, cmake/AttnEmbedLessons.cmake): `attn examples` lists them,
// `attn examples NAME` prints one (to start a spec of one's own from), and
// `attn trace --example NAME` runs one, from any folder.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace attn::cli {

// The spec text of example NAME ("cat-window", with or without ".toml"). Throws
// std::invalid_argument naming the closest example and where the list is.
std::string example_spec(const std::string& name);

void setup_examples(CLI::App& app);  // `attn examples [NAME]`

}  // namespace attn::cli
