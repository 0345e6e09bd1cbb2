// lessons/model_source_reader.hpp — an exercise's trained-head keys (model, tokens,
// layer, head; its variant's drawn, then, range, same_input_as), read and checked with
// every problem at file:line:col (lessons/README.md, "numeric on a trained model").
#pragma once

#include <optional>

#include "io/toml_read.hpp"
#include "lessons/model_head_inputs.hpp"

namespace attn::lessons {

// nullopt when a problem was recorded through rd.
std::optional<model_source> read_model_source(const toml::table& t, const io::toml_reader& rd);

}  // namespace attn::lessons
