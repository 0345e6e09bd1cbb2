// trace/text_width.hpp — terminal column width of UTF-8 text, so that tables stay
// aligned when labels are Hangul (고양이가) or other wide characters.
#pragma once

#include <string>

namespace attn::trace {

// Columns the text occupies in a terminal: East Asian wide/fullwidth code points
// count 2, combining marks 0, everything else 1. Invalid UTF-8 bytes count 1 each.
std::size_t display_width(const std::string& utf8);

std::string pad_right(const std::string& text, std::size_t width);
std::string pad_left(const std::string& text, std::size_t width);

// True when the bytes are well-formed UTF-8.
bool is_valid_utf8(const std::string& bytes);

}  // namespace attn::trace
