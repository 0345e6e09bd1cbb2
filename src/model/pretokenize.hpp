// model/pretokenize.hpp — the pre-tokenising patterns of byte-level BPE tokenizers, by
// hand (no regex engine). Each splits a text into the pieces BPE then merges inside:
//
//   gpt2    's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   llama3  (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//           ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//   qwen2   llama3's with \p{N} (one digit a piece) for \p{N}{1,3}
//
// Every character is a letter, a number, whitespace or other (model/unicode_classes.hpp),
// so each pattern matches at every position and the pieces tile the text. One pass,
// linear in its length. The kinds are a registry (pretokenizer_kinds) carrying their
// splitter, found by the names tokenizer files use (GGUF's tokenizer.ggml.pre, the
// pattern text of a tokenizer.json).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/unicode_classes.hpp"
#include "model/utf8.hpp"

namespace attn::model {

// One piece: the bytes [begin, end) of the text.
struct pretoken {
    std::size_t begin, end;
};

// A splitter's step: the end (in code points) of the piece starting at code point i.
using piece_end_fn = std::size_t (*)(const std::vector<code_point>& cps, const std::vector<char_class>& cls,
                                     std::size_t i);

struct pretokenizer_kind {
    const char* name;             // "gpt2", "llama3", "qwen2"
    const char* words;            // on screen: "GPT-2's pattern"
    const char* pattern;          // the regex it implements, as tokenizer.json writes it
    const char* gguf_names;       // tokenizer.ggml.pre values, space-separated
    piece_end_fn piece_end;
};

// The registry, in a fixed order; the first is GPT-2's.
const std::vector<pretokenizer_kind>& pretokenizer_kinds();
const pretokenizer_kind& gpt2_pretokenizer();
// The kind a GGUF tokenizer.ggml.pre value names, or nullptr.
const pretokenizer_kind* pretokenizer_for_gguf(std::string_view pre);
// The kind whose pattern is exactly `regex`, or nullptr.
const pretokenizer_kind* pretokenizer_for_pattern(std::string_view regex);
// "gpt2 (default, gpt-2), llama3 (llama3, llama-bpe, …), …" for refusals.
std::string pretokenizer_names();

// The pieces of `utf8`, in order. Throws invalid_utf8 (model/utf8.hpp) at the first
// bad byte. Without a kind: GPT-2's.
std::vector<pretoken> pretokenize(std::string_view utf8, const pretokenizer_kind& kind);
std::vector<pretoken> pretokenize(std::string_view utf8);

// The splitters (model/pretokenize.cpp, model/pretokenize_llama3.cpp).
std::size_t gpt2_piece_end(const std::vector<code_point>& cps, const std::vector<char_class>& cls, std::size_t i);
std::size_t llama3_piece_end(const std::vector<code_point>& cps, const std::vector<char_class>& cls, std::size_t i);
std::size_t qwen2_piece_end(const std::vector<code_point>& cps, const std::vector<char_class>& cls, std::size_t i);

}  // namespace attn::model
