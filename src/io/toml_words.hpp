// io/toml_words.hpp — how a TOML value's type is named in an error message ("found a
// string"), one wording for every file attn reads (trace specs, lessons, answers).
#pragma once

#include <string>

#include <toml++/toml.h>

namespace attn::io {

// "a string", "an integer", "a number", "a boolean", "an array", "a table",
// "a date or time"; "nothing" for a missing value (nullptr).
std::string toml_type_name(const toml::node* node);

}  // namespace attn::io
