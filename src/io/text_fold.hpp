// io/text_fold.hpp — text compared as a person means it: spaces around it dropped,
// ASCII case ignored, punctuation only a word break. Student ids (" Alice\r" and
// "alice" are one student), a course secret's line, and a typed choice ("Word-order!"
// names the choice "word order") are compared this way. Non-ASCII bytes are kept as
// they are: Hangul, × and é are letters, and bytes are never case-folded.
#pragma once

#include <string>
#include <string_view>

namespace attn::io {

// Without the leading and trailing bytes found in `spaces` ("" when nothing else is left).
std::string trimmed(std::string_view text, std::string_view spaces = " \t\r\n");

// ASCII letters lower-cased, every other byte kept.
std::string ascii_lower(std::string text);

// Lower case, every run of bytes that is neither an ASCII letter or digit nor non-ASCII
// one space, none at either end: "  Word-order!" → "word order".
std::string folded_words(std::string_view text);

}  // namespace attn::io
