// model/tokenizer_json.hpp — a Hugging Face tokenizer.json of the BPE kind with
// byte-level pre-tokenising (GPT-2, Llama 3, Qwen2/Qwen3, SmolLM …), read as untrusted
// input through io/json_scan: every problem at file:line:col, saying what was expected
// and what was found. What is read:
//   model        type "BPE"; vocab (tokens in GPT-2's byte-level alphabet, ids 0 … n−1);
//                merges ("a b" strings or ["a", "b"] pairs, in rank order);
//                ignore_merges; dropout must be null; no subword prefix or suffix
//   added_tokens id, content, special, lstrip, rstrip (single_word refused)
//   normalizer   null, or NFC (texts NFC would change are refused: model/unicode_nfc)
//   pre_tokenizer ByteLevel with GPT-2's pattern (use_regex), or a Sequence of a Split
//                by GPT-2's, Llama 3's or Qwen2's pattern (Isolated) and a ByteLevel
//                without regex; add_prefix_space honoured
//   post_processor the special tokens a TemplateProcessing puts around a single text
//                (BOS), inside a Sequence or not; ByteLevel adds none
// tokenizer_config.json beside it, when there: add_bos_token (true puts bos_token
// first, false takes a BOS off the template).
#pragma once

#include <string>
#include <string_view>

#include "model/tokenizer.hpp"

namespace attn::model {

// The largest tokenizer.json read (Llama 3's is 9 MB, Qwen's 11 MB).
constexpr std::size_t max_tokenizer_json_bytes = std::size_t{256} << 20;

// Reads `path` (and tokenizer_config.json beside it).
tokenizer read_tokenizer_json(const std::string& path);
// The same on text already read; config_text may be empty (no config).
tokenizer parse_tokenizer_json(const std::string& name, std::string_view text, const std::string& config_name,
                               std::string_view config_text);

}  // namespace attn::model
