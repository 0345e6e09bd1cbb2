// model/gguf_tokenizer.hpp — the tokenizer a GGUF file carries in its metadata
// (tokenizer.ggml.*), checked as untrusted input and built into one of attn's kinds:
//   tokenizer.ggml.model  "llama" → SentencePiece BPE (model/spm.hpp): tokens, scores,
//                         token_type; "gpt2" → byte-level BPE (model/tokenizer_data.hpp):
//                         tokens, merges, token_type, pre (the pattern: model/pretokenize)
//   bos_token_id, eos_token_id, add_bos_token, add_space_prefix (llama)
// Any other model or pattern is refused by name with the supported ones listed. Every
// error is "file: byte N: …" at the key's value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/tokenizer.hpp"

namespace attn::model {

// A metadata value and the byte offset of its key in the file.
template <class T>
struct gguf_field {
    T value{};
    std::uint64_t at = 0;
};

struct gguf_tokenizer_fields {
    std::string file;
    std::uint64_t metadata_at = 0;  // where the metadata starts (for a missing key)
    std::optional<gguf_field<std::string>> model, pre;
    std::optional<gguf_field<std::vector<std::string>>> tokens, merges;
    std::optional<gguf_field<std::vector<float>>> scores;
    std::optional<gguf_field<std::vector<std::int32_t>>> types;
    std::optional<gguf_field<std::uint64_t>> bos, eos;
    std::optional<gguf_field<bool>> add_bos, add_space_prefix;
};

// The kinds of tokenizer.ggml.model, each with its builder.
struct gguf_tokenizer_kind {
    const char* model;  // "llama", "gpt2"
    const char* words;  // "SentencePiece BPE"
    tokenizer (*build)(const gguf_tokenizer_fields&);
};
const std::vector<gguf_tokenizer_kind>& gguf_tokenizer_kinds();

// Builds the tokenizer. Throws model::file_error ("file: byte N: …").
tokenizer tokenizer_from_gguf(const gguf_tokenizer_fields& f);

// Reads the fields from a GGUF file's metadata (model/gguf_tokenizer_read.cpp).
gguf_tokenizer_fields read_gguf_tokenizer_fields(const std::string& path);
// The same from a GGUF's bytes in memory (a model built into attn), errors naming `name`.
gguf_tokenizer_fields read_gguf_tokenizer_fields(const std::string& name, const unsigned char* data, std::size_t size);

}  // namespace attn::model
