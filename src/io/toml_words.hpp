// io/toml_words.hpp — how a TOML value's type is named in an error message ("found a
// string"), one wording for every file attn reads (trace specs, lessons, answers); and
// a string as attn writes it into a TOML file (answer templates, the progress file).
#pragma once

#include <string>

#include <toml++/toml.h>

namespace attn::io {

// "a string", "an integer", "a number", "a boolean", "an array", "a table",
// "a date or time"; "nothing" for a missing value (nullptr).
std::string toml_type_name(const toml::node* node);

// "\"text\"": '"' and '\' escaped, a control character as \uXXXX (it stays visible
// text: a line break in a value would end it).
std::string toml_quoted(const std::string& s);

}  // namespace attn::io
