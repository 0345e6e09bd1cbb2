// model/tokenizer.hpp — the one tokenizer interface of attn and its kinds.
//
// `tokenizer` is what the verbs hold: encode a text, decode ids, show a token. Behind it
// sits one handler of a kind (a `tokenizer_model`):
//   * bpe_tokenizer — byte-level BPE: GPT-2's files (vocab.json + merges.txt or
//     encoder.json + vocab.bpe), a Hugging Face tokenizer.json of the BPE kind
//     (model/tokenizer_json), a GGUF whose tokenizer.ggml.model is "gpt2"
//     (model/gguf_tokenizer). A text is cut at its added (special) tokens first, each
//     other section split by a pre-tokenising pattern (model/pretokenize: GPT-2's, Llama
//     3's, Qwen2's), each piece's UTF-8 bytes spelled as single-byte tokens and merged by
//     rank (model/bpe).
//   * spm_tokenizer — SentencePiece BPE as GGUF stores it (tokenizer.ggml.model "llama":
//     pieces, scores, types; model/spm.hpp).
// tokenizer::load finds the kind from the path (model/tokenizer_load.cpp: the registry
// of sources, each with its handler). Text that a tokenizer cannot encode exactly (a
// character with no token and no byte fallback, text a normalizer would change) is
// refused with untokenizable_text, never approximated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace attn::model {

// A text the tokenizer cannot encode exactly. `offset` is the byte of the text where the
// problem is; what() reads "cannot tokenize the text exactly at byte 12: …".
struct untokenizable_text : error {
    std::size_t offset;
    std::string detail;  // the message without "cannot tokenize … at byte N: "
    untokenizable_text(std::size_t offset, const std::string& detail);
};

// One kind's handler.
class tokenizer_model {
public:
    virtual ~tokenizer_model() = default;
    // The ids of a UTF-8 text, with the tokens the tokenizer adds (BOS) when it does.
    // Throws invalid_utf8 (model/utf8.hpp) or untokenizable_text.
    virtual std::vector<std::uint32_t> encode(std::string_view utf8) const = 0;
    // What the token stands for in text: its bytes (a byte token's one byte, an added
    // token's content); "" for a control token (BOS, EOS) that stands for no text.
    virtual std::string token_bytes(std::uint32_t id) const = 0;
    // The token as its file spells it ("Ġworld", "▁world", "<0x0A>", "<s>").
    virtual std::string token_piece(std::uint32_t id) const = 0;
    // Is it a control token (shown by its piece, standing for no text)?
    virtual bool is_control(std::uint32_t id) const = 0;
    // The text of a sequence of ids (the inverse of encode, without the added BOS).
    virtual std::string decode(const std::vector<std::uint32_t>& ids) const = 0;
    virtual std::size_t vocab_size() const = 0;
    // "GPT-2 byte-level BPE (vocab.json + merges.txt)", "SentencePiece BPE (GGUF)" …
    virtual std::string description() const = 0;
    virtual std::optional<std::uint32_t> eos_id() const { return std::nullopt; }
};

// GPT-2-style byte-level BPE. Its data (model/tokenizer.cpp) holds the vocabulary, the
// merges, the pattern, the added tokens and the ids added around a text.
struct tokenizer_data;

class bpe_tokenizer : public tokenizer_model {
public:
    // GPT-2's two files from a folder. Throws io::input_error (file:line:col) on a missing
    // or malformed file.
    static bpe_tokenizer load(const std::string& dir);
    // The same from the two files' text (names for messages): tests and the fuzz target.
    static bpe_tokenizer parse(const std::string& vocab_name, std::string_view vocab_text,
                               const std::string& merges_name, std::string_view merges_text);
    // From data already read (tokenizer.json, GGUF).
    explicit bpe_tokenizer(std::shared_ptr<const tokenizer_data> d) : d_(std::move(d)) {}

    std::vector<std::uint32_t> encode(std::string_view utf8) const override;
    std::string token_bytes(std::uint32_t id) const override;
    std::string token_piece(std::uint32_t id) const override;
    bool is_control(std::uint32_t id) const override;
    std::string decode(const std::vector<std::uint32_t>& ids) const override;
    std::size_t vocab_size() const override;
    std::string description() const override;
    std::optional<std::uint32_t> eos_id() const override;

    // A readable one-line label, safe on a terminal (as tokenizer::token_label).
    std::string token_label(std::uint32_t id) const;
    std::size_t merge_count() const;
    // Which files were read: "vocab.json + merges.txt" or "encoder.json + vocab.bpe".
    const std::string& files() const;

private:
    bpe_tokenizer() = default;
    std::shared_ptr<const tokenizer_data> d_;
};

class tokenizer {
public:
    // A folder (tokenizer.json, or vocab.json + merges.txt, or encoder.json + vocab.bpe),
    // a tokenizer.json, or a GGUF file. Throws io::input_error naming the file and place.
    static tokenizer load(const std::string& path);
    // Is this path a GGUF file (its first four bytes "GGUF")?
    static bool is_gguf(const std::string& path);

    explicit tokenizer(std::shared_ptr<const tokenizer_model> m) : m_(std::move(m)) {}

    std::vector<std::uint32_t> encode(std::string_view utf8) const { return m_->encode(utf8); }
    std::string decode(const std::vector<std::uint32_t>& ids) const { return m_->decode(ids); }
    // Throws attn::internal_error for an id ≥ vocab_size().
    std::string token_bytes(std::uint32_t id) const { return m_->token_bytes(id); }
    std::string token_piece(std::uint32_t id) const { return m_->token_piece(id); }
    // A readable one-line label, safe on a terminal: a space is shown as ␣ ("␣world"),
    // \n \r \t as those escapes, other whitespace as \uXXXX, control bytes and bytes
    // that are not whole UTF-8 characters as \xNN (io/terminal_safe); a control token
    // as its piece ("<s>").
    std::string token_label(std::uint32_t id) const;
    std::size_t vocab_size() const { return m_->vocab_size(); }
    std::string description() const { return m_->description(); }
    std::optional<std::uint32_t> eos_id() const { return m_->eos_id(); }
    const tokenizer_model& model() const { return *m_; }

private:
    std::shared_ptr<const tokenizer_model> m_;
};

// The readable label of a token's bytes (what tokenizer::token_label shows).
std::string bytes_label(std::string_view bytes);

}  // namespace attn::model
