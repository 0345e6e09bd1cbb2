// io/utf8.hpp — the one UTF-8 decoder, validator and encoder, strict by Unicode's Table
// 3-7: no overlong forms, no UTF-16 surrogates, nothing above U+10FFFF, nothing cut
// short. The terminal sanitiser, the answer and review-sheet readers, the course
// secret, the tokenizer (model/utf8) and the checkpoint JSON reader all use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace attn::io {

// Length of the valid UTF-8 sequence at s[i] (1–4) and its code point in *cp; 0 when
// the bytes there are not valid UTF-8.
std::size_t utf8_at(std::string_view s, std::size_t i, std::uint32_t* cp);

// Why the bytes at s[i] are not valid UTF-8, in words ("expected a byte in 0x80–0xBF
// after 0xE6, found 0x41"), with the offset of the first byte that breaks the rule in
// *at; "" when they are valid. For messages, after utf8_at returned 0.
std::string utf8_problem(std::string_view s, std::size_t i, std::size_t* at);

// True when every byte of `text` is part of valid UTF-8; else *bad_offset (when
// given) is the offset of the first byte that is not.
bool valid_utf8(std::string_view text, std::size_t* bad_offset = nullptr);

// Where text may be cut at or before byte n (n ≤ s.size()): n itself, or the start of
// the character n falls inside, so a cut never splits a UTF-8 sequence.
std::size_t utf8_boundary(std::string_view s, std::size_t n);

// True for a Unicode scalar value: at most U+10FFFF and not a UTF-16 surrogate (what
// a decoder of UTF-16 or UTF-32 may turn into UTF-8).
bool is_scalar_value(std::uint32_t cp);

// Appends the UTF-8 form of `cp` (a Unicode scalar value) to `out`: the one encoder,
// used by the JSON readers (\u escapes) and the tokenizer's byte alphabet.
void append_utf8(std::string& out, std::uint32_t cp);

}  // namespace attn::io
