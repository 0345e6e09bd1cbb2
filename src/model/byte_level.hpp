// model/byte_level.hpp — GPT-2's byte-level alphabet (encoder.py's bytes_to_unicode):
// each of the 256 byte values is spelled by one printable character in the vocabulary
// files, so that a token's bytes (a space, a newline, half of a UTF-8 character) can be
// written as text. Printable Latin-1 bytes (! … ~, ¡ … ¬, ® … ÿ) stand for themselves;
// the other 68 (controls, space, DEL, NBSP, soft hyphen) become U+0100 … U+0143 in
// byte order: a space is Ġ (U+0120), a newline Ċ (U+010A).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace attn::model {

// The character that spells byte `b`.
char32_t byte_char(std::uint8_t b);

// The byte a character spells, or -1 when it is not one of the 256.
int char_byte(char32_t c);

// A token's bytes spelled in the alphabet (UTF-8): " world" → "Ġworld".
std::string spell_bytes(std::string_view bytes);

}  // namespace attn::model
