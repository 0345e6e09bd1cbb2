// io/csv_read.hpp — reads a numeric CSV into a 2-D nd_array: one row per line,
// comma-separated numbers; blank lines and lines starting with '#' are skipped.
// A UTF-8 byte order mark is skipped; decimal numbers only (no nan, inf or hex);
// subnormal numbers (1e-310) are kept, numbers beyond ±1.8e308 are refused; a NUL
// byte is refused. Every refusal names file:line:col. Linear in the file's size.
#pragma once

#include <string>

#include "io/nd_array.hpp"

namespace attn::io {

nd_array read_csv(const std::string& path);

// The same, from text in memory (the fuzz harness; `display_path` names it in messages).
nd_array parse_csv(const std::string& text, const std::string& display_path);

}  // namespace attn::io
