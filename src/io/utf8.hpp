// io/utf8.hpp — the one UTF-8 decoder, validator and encoder (strict: no overlong forms, no
// UTF-16 surrogates, nothing above U+10FFFF, nothing cut short). The terminal
// sanitiser, the answer and review-sheet readers and the course secret all use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace attn::io {

// Length of the valid UTF-8 sequence at s[i] (1–4) and its code point in *cp; 0 when
// the bytes there are not valid UTF-8.
std::size_t utf8_at(std::string_view s, std::size_t i, std::uint32_t* cp);

// True when every byte of `text` is part of valid UTF-8; else *bad_offset (when
// given) is the offset of the first byte that is not.
bool valid_utf8(std::string_view text, std::size_t* bad_offset = nullptr);

// Appends the UTF-8 form of `cp` (a Unicode scalar value) to `out`: the one encoder,
// used by the JSON readers (\u escapes) and the tokenizer's byte alphabet.
void append_utf8(std::string& out, std::uint32_t cp);

}  // namespace attn::io
