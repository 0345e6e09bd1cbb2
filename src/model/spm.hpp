// model/spm.hpp — SentencePiece BPE as GGUF stores it (tokenizer.ggml.model = "llama":
// Llama 1/2, Mistral, TinyLlama, llama2.c's stories models), encoded the way
// SentencePiece's BPE model and llama.cpp's "SPM" tokenizer do:
//   1. the text gets a leading space (add_space_prefix) and every space becomes '▁';
//   2. it is cut into characters (a user-defined piece matched first stays whole);
//   3. repeatedly, the adjacent pair whose joined text is a piece with the highest score
//      is merged (ties: the leftmost), through a priority queue: O(n log n);
//   4. each final symbol is its piece's id; a symbol that is no piece (a character the
//      vocabulary lacks) falls back to its UTF-8 bytes as <0xNN> pieces. A byte without
//      its <0xNN> piece cannot be encoded exactly: the text is refused there.
// Decoding joins the pieces, '▁' back to a space, bytes as bytes, control tokens (<s>,
// </s>) as nothing, and drops the leading space step 1 added.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/tokenizer.hpp"

namespace attn::model {

// SentencePiece's piece types (GGUF's tokenizer.ggml.token_type).
enum class piece_type : std::int32_t { normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6 };

struct spm_data {
    std::vector<std::string> pieces;  // [n] as the file spells them ("▁the", "<0x0A>", "<s>")
    std::vector<float> scores;        // [n] merge priority: higher merges first
    std::vector<piece_type> types;    // [n]
    std::unordered_map<std::string, std::uint32_t> ids;  // piece → id (normal, user-defined, unused)
    std::array<std::int32_t, 256> byte_ids{};  // [256] the id of <0xNN>, or −1
    std::vector<std::uint32_t> user_defined;   // ids of the user-defined pieces
    std::optional<std::uint32_t> bos, eos;
    bool add_bos = true;
    bool add_space_prefix = true;
    std::string files;  // the file it came from
};

class spm_tokenizer : public tokenizer_model {
public:
    // `d` must be consistent (model/gguf_tokenizer.cpp checks a file's fields).
    explicit spm_tokenizer(std::shared_ptr<const spm_data> d) : d_(std::move(d)) {}

    std::vector<std::uint32_t> encode(std::string_view utf8) const override;
    std::string token_bytes(std::uint32_t id) const override;
    std::string token_piece(std::uint32_t id) const override;
    bool is_control(std::uint32_t id) const override;
    std::string decode(const std::vector<std::uint32_t>& ids) const override;
    std::size_t vocab_size() const override { return d_->pieces.size(); }
    std::string description() const override;
    std::optional<std::uint32_t> eos_id() const override { return d_->eos; }

private:
    std::shared_ptr<const spm_data> d_;
};

}  // namespace attn::model
