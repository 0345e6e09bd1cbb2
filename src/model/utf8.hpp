// model/utf8.hpp — strict UTF-8 decoding for the tokenizer: the text must be valid
// UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF), because GPT-2's
// pre-tokenising pattern is defined over code points. The first bad byte is reported
// by its offset, with what was expected there and what was found.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "io/utf8.hpp"

namespace attn::model {

// Invalid UTF-8 in a text to tokenize. `offset` is the byte where decoding failed;
// what() reads "invalid UTF-8 at byte 12: expected …, found 0x41".
struct invalid_utf8 : error {
    std::size_t offset;
    std::string detail;  // the message without "invalid UTF-8 at byte N: "
    invalid_utf8(std::size_t offset, const std::string& detail);
};

// One decoded code point and where its bytes start.
struct code_point {
    char32_t cp;
    std::uint32_t offset;  // byte offset in the text (texts are < 4 GiB)
};

// Decodes all of `text`. Throws invalid_utf8 at the first bad byte.
std::vector<code_point> decode_utf8(std::string_view text);

// Decodes one code point at `i` without throwing: returns its length in bytes, or 0
// when the bytes at `i` are not valid UTF-8 (then `cp` is unspecified).
std::size_t decode_one(std::string_view text, std::size_t i, char32_t& cp);

// Appends the UTF-8 form of `cp` to `out` (io/utf8.hpp's one encoder).
using io::append_utf8;

}  // namespace attn::model
