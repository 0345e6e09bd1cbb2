// model/unicode_classes.hpp — the three character classes GPT-2's pre-tokenising
// pattern asks about (\p{L}, \p{N}, \s), for any code point, from a table generated
// by tools/gen-unicode-classes out of Python's unicodedata (Unicode 14.0). \s is
// JavaScript's, because the reference encoder (npm's gpt-3-encoder) is JavaScript.
// Code points assigned after Unicode 14.0 are `other` here; a newer JavaScript engine
// may call some of them letters or numbers (tests/python/test_model_tokenizer.py lists
// the difference against the Node it runs).
#pragma once

#include <cstdint>

namespace attn::model {

enum class char_class : std::uint8_t { other, letter, number, space };

// The class of one code point (anything above U+10FFFF is `other`).
char_class classify(char32_t cp);

// The Unicode version of the table ("14.0.0").
const char* unicode_classes_version();

namespace detail {
struct class_run {
    char32_t first, last;  // inclusive
    char_class cls;
};
extern const class_run unicode_class_runs[];  // [unicode_class_run_count] sorted by first
extern const unsigned unicode_class_run_count;
extern const char* const unicode_table_version;
}  // namespace detail

}  // namespace attn::model
