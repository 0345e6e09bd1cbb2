// model/tokenizer_files.hpp — reading a byte-level BPE tokenizer's two files, as
// untrusted input (through io/input_read, with size limits):
//   * the vocabulary, a JSON object {"token": id, …} (OpenAI's encoder.json, Hugging
//     Face's vocab.json), tokens spelled in the byte-level alphabet (model/byte_level);
//   * the merges, one "left right" pair a line in rank order, after an optional
//     "#version" line (OpenAI's vocab.bpe, Hugging Face's merges.txt).
// Every problem is an io::input_error at file:line:col saying what was expected and
// what was found.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/input_error.hpp"
#include "io/text_position.hpp"
#include "model/bpe.hpp"

namespace attn::model {

// The largest vocabulary file read (GPT-2's encoder.json is 1 MB).
constexpr std::size_t max_vocab_file_bytes = std::size_t{64} << 20;
// Token ids stay below this (GPT-2: 50,257; the largest vocabularies in use: ~260,000).
constexpr std::uint32_t max_token_id = std::uint32_t{1} << 24;

struct vocabulary {
    std::vector<std::string> bytes;                       // [n_vocab] id → the token's raw bytes
    std::unordered_map<std::string, std::uint32_t> ids;  // raw bytes → id
    std::uint32_t byte_ids[256];                          // [256] the id of each single-byte token
};

// Reads a vocabulary file. Ids must be 0 … n−1, each once; every one of the 256 bytes
// must be a token of its own.
vocabulary read_vocabulary(const std::string& path);
// The same on a file's text already read (`name` for messages; the fuzz target).
vocabulary parse_vocabulary(const std::string& name, std::string_view text);

// Reads a merges file against `vocab`: both halves and their join must be tokens. A
// pair listed twice keeps its later rank (as encoder.py's dict does).
merge_table read_merges(const std::string& path, const vocabulary& vocab);
merge_table parse_merges(const std::string& name, std::string_view text, const vocabulary& vocab);

using io::position_in;  // file:line:col of a byte offset (io/text_position.hpp)

}  // namespace attn::model
