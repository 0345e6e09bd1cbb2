// model/tokenizer_data.hpp — what a byte-level BPE tokenizer (model/tokenizer.hpp's
// bpe_tokenizer) is made of, whichever file it came from: the vocabulary, the merges,
// the pre-tokenising pattern, the added tokens matched before anything else, and the
// ids added around every text. The readers fill it (model/tokenizer.cpp for GPT-2's
// files, model/tokenizer_json.cpp, model/gguf_tokenizer.cpp); model/tokenizer.cpp runs it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/bpe.hpp"
#include "model/pretokenize.hpp"
#include "model/tokenizer_files.hpp"

namespace attn::model {

// A token matched in the text before pre-tokenising ("<|im_start|>"), as Hugging Face's
// added tokens are: leftmost, longest first.
struct added_token {
    std::string content;  // its text (UTF-8)
    std::uint32_t id = 0;
    bool control = false;  // special: a marker, not text (shown by its content)
    bool lstrip = false;   // whitespace before it is dropped
    bool rstrip = false;   // whitespace after it is dropped
};

struct tokenizer_data {
    vocabulary vocab;   // the BPE vocabulary: bytes of ids [0, n_model), every byte a token
    merge_table merges;
    const pretokenizer_kind* pre = &gpt2_pretokenizer();
    bool ignore_merges = false;     // a piece that is itself a token is taken whole
    bool add_prefix_space = false;  // a section not starting with ' ' gets one
    bool nfc = false;               // the tokenizer normalizes to NFC: texts it would change are refused
    std::vector<added_token> added;           // [n_added]
    std::vector<std::int32_t> added_of_id;    // [vocab_size] index into `added`, or −1
    std::vector<std::uint32_t> prefix, suffix;  // ids added before / after every text (BOS …)
    std::optional<std::uint32_t> eos;
    std::string files;  // "vocab.json + merges.txt", "tokenizer.json", "model.gguf"
    std::string kind;   // "GPT-2 byte-level BPE", "Hugging Face byte-level BPE" …

    std::size_t vocab_size() const { return added_of_id.size(); }
};

// Sets up added_of_id for a vocabulary of `n` ids (the model's and the added ones): every
// id below n must be a BPE token or an added token. `where` names the file for errors.
void index_added_tokens(tokenizer_data& d, std::size_t n, const std::string& where);

}  // namespace attn::model
