// io/toml_parse.hpp — the one way from TOML text to a toml++ table, for every TOML
// file attn reads (lessons, spec files, assignments, answers, the progress file).
// The nesting is checked first (io/toml_depth: toml++ recurses once per level), then
// toml++ parses; a syntax error becomes io::input_error, reason "syntax", at
// file:line:col, in one wording: "TOML syntax: <what toml++ says>" (plus a hint the
// caller may add, e.g. where a key was defined first).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "io/input_error.hpp"

namespace attn::io {

// A hint appended to the syntax message: given toml++'s description and the place.
using toml_syntax_hint = std::function<std::string(const std::string& description, const source_pos& where)>;

toml::table parse_toml(std::string_view text, const std::string& display_path, const toml_syntax_hint& hint = {});

// A hint for toml++'s "cannot redefine existing table 'ID'", which names the second
// definition only: the first ([ID], ["ID"], ID = or "ID" = at the start of an earlier
// line of text), so both places are named; "" for any other description.
std::string toml_first_definition(std::string_view text, const std::string& description, const source_pos& second);

}  // namespace attn::io
