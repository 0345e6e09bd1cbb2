// model/tokenizer.hpp — GPT-2's tokenizer: byte-level BPE read from a folder holding
// encoder.json + vocab.bpe (OpenAI's names) or vocab.json + merges.txt (Hugging Face's).
// A text is split by GPT-2's pre-tokenising pattern (model/pretokenize), each piece's
// UTF-8 bytes are spelled as single-byte tokens and merged by rank (model/bpe). Its
// answers equal those of npm's gpt-3-encoder 1.1.4 (tests/python/test_model_tokenizer.py)
// for every text whose characters Unicode 14.0 assigns (model/unicode_classes.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attn::model {

struct tokenizer_data;  // model/tokenizer.cpp

class bpe_tokenizer {
public:
    // Reads the folder's files. Throws io::input_error (file:line:col) on a missing or
    // malformed file.
    static bpe_tokenizer load(const std::string& dir);
    // The same from the two files' text (names for messages): tests and the fuzz target.
    static bpe_tokenizer parse(const std::string& vocab_name, std::string_view vocab_text,
                               const std::string& merges_name, std::string_view merges_text);

    // The token ids of a UTF-8 text. Throws invalid_utf8 (model/utf8.hpp, with the byte
    // offset) when the text is not valid UTF-8.
    std::vector<std::uint32_t> encode(std::string_view utf8) const;

    // The raw bytes of one token (" world"); a token may hold part of a UTF-8 character.
    // Throws std::out_of_range for an id ≥ vocab_size().
    std::string token_bytes(std::uint32_t id) const;
    // The token as the vocabulary file spells it, in the byte-level alphabet ("Ġworld").
    std::string token_piece(std::uint32_t id) const;
    // A readable one-line label, safe on a terminal: a space is shown as ␣ ("␣world"),
    // \n \r \t as those escapes, other whitespace as \uXXXX, control bytes and bytes
    // that are not whole UTF-8 characters as \xNN (io/terminal_safe).
    std::string token_label(std::uint32_t id) const;
    // The bytes of a sequence of ids, joined (the inverse of encode).
    std::string decode(const std::vector<std::uint32_t>& ids) const;

    std::size_t vocab_size() const;
    std::size_t merge_count() const;
    // Which files were read: "vocab.json + merges.txt" or "encoder.json + vocab.bpe".
    const std::string& files() const;

private:
    std::shared_ptr<const tokenizer_data> d_;
};

}  // namespace attn::model
