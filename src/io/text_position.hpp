// io/text_position.hpp — file:line:col of a byte offset in a text, for readers that
// work on bytes (the JSON scanner, UTF-8 checks, CSV cells) and report where a person
// reads: lines and columns from 1, columns counting characters (not UTF-8
// continuation bytes), as toml++ counts them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "io/input_error.hpp"

namespace attn::io {

// Counts forward from the last offset asked for: a reader that asks in file order
// counts the whole text once (linear time).
struct text_position {
    std::string_view text;
    source_pos pos;  // where `at` is
    std::size_t at = 0;

    text_position(std::string file, std::string_view t) : text(t), pos{std::move(file), 1, 1} {}
    source_pos to(std::size_t offset);  // offset ≥ the last one asked for
};

io::source_pos position_in(const std::string& file, std::string_view text, std::size_t offset);

}  // namespace attn::io
