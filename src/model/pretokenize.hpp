// model/pretokenize.hpp — GPT-2's pre-tokenising pattern, by hand (no regex engine):
//
//     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// splits a text into the pieces BPE then merges inside. Every character is a letter,
// a number, whitespace or other (model/unicode_classes.hpp), so the pattern matches
// at every position and the pieces tile the text. One pass, linear in its length.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace attn::model {

// One piece: the bytes [begin, end) of the text.
struct pretoken {
    std::size_t begin, end;
};

// The pieces of `utf8`, in order. Throws invalid_utf8 (model/utf8.hpp) at the first
// bad byte.
std::vector<pretoken> pretokenize(std::string_view utf8);

}  // namespace attn::model
