// io/toml_depth.hpp — refuses TOML text nested deeper than a fixed limit, before the
// TOML parser sees it. toml++ recurses once per level of table headers ([a.b.c]),
// dotted keys (a.b.c = 1) and inline arrays/tables, so a 60 KB file of `[a.a.a…]`
// overflows its stack. This scanner is linear, never recurses, understands strings
// and comments, and counts for each place in the document:
//   depth = segments of the current table header + segments of the key
//         + for each open inline array/table: 1 + the extra dotted segments of its key.
#pragma once

#include <string>
#include <string_view>

namespace attn::io {

// The documented limit (docs/safety.md): no attn file needs more than a handful.
constexpr int max_toml_nesting = 64;

// Throws input_error (reason "too-deep", file:line:col of the first place past the limit).
void check_toml_nesting(std::string_view text, const std::string& display_path, int limit = max_toml_nesting);

}  // namespace attn::io
