// tests/support/fuzz_tokenizer.cpp — the fuzz target of GPT-2's tokenizer
// (model/tokenizer, model/vocab_json, model/merges_file, model/pretokenize, model/bpe).
// The first byte picks what the rest is:
//   0  a vocabulary file (vocab.json);
//   1  a merges file read against a small vocabulary (256 bytes, then "a b", "ab c" …);
//   2+ a text encoded with that vocabulary and a few merges: when the text is valid
//      UTF-8, decoding the ids must give its bytes back (a mismatch aborts: a finding);
//   0xFE a tokenizer.json (model/tokenizer_json);
//   0xFD a text split by Llama 3's pattern: the pieces must tile it.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "model/byte_level.hpp"
#include "model/pretokenize.hpp"
#include "model/tokenizer.hpp"
#include "model/tokenizer_json.hpp"
#include "model/utf8.hpp"
#include "support/fuzz_targets.hpp"

namespace attn::fuzz {

namespace {

// vocab.json text: the 256 single bytes (ids 0–255, id = byte), then `extra` tokens.
std::string small_vocab(const std::vector<std::string>& extra) {
    std::string v = "{";
    for (int b = 0; b < 256; ++b) {
        const std::string s = model::spell_bytes(std::string(1, static_cast<char>(b)));
        v += (b ? ", \"" : "\"") + (s == "\"" ? "\\\"" : s == "\\" ? "\\\\" : s) + "\": " + std::to_string(b);
    }
    for (std::size_t k = 0; k < extra.size(); ++k) v += ", \"" + extra[k] + "\": " + std::to_string(256 + k);
    return v + "}";
}

const std::vector<std::string>& extra_tokens() {
    static const std::vector<std::string> t = {"ab", "abc", "Ġa", "Ġab", "aa", "aaa", "ĠĠ", "Ċ" "Ċ", "12"};
    return t;
}

const model::bpe_tokenizer& small_tokenizer() {
    static const model::bpe_tokenizer tok = model::bpe_tokenizer::parse(
        "vocab.json", small_vocab(extra_tokens()), "merges.txt",
        "#version: 0.2\na b\nab c\nĠ a\nĠa b\naa a\na a\nĠ Ġ\nĊ Ċ\n1 2\n");
    return tok;
}

}  // namespace

int tokenizer(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    return refusals_are_fine([&] {  // io::input_error, model::invalid_utf8: refusals are expected
        if (data[0] == 0) {
            (void)model::bpe_tokenizer::parse("vocab.json", text, "merges.txt", "");
        } else if (data[0] == 0xFE) {
            (void)model::parse_tokenizer_json("tokenizer.json", text, "", "");
        } else if (data[0] == 0xFD) {
            std::size_t at = 0;
            for (const auto& p : model::pretokenize(text, model::pretokenizer_kinds()[1])) {
                if (p.begin != at || p.end <= p.begin) std::abort();
                at = p.end;
            }
            if (at != text.size()) std::abort();
        } else if (data[0] == 1) {
            (void)model::bpe_tokenizer::parse("vocab.json", small_vocab(extra_tokens()), "merges.txt", text);
        } else {
            const auto& tok = small_tokenizer();
            const auto ids = tok.encode(text);  // throws invalid_utf8 on bad bytes
            if (tok.decode(ids) != text) std::abort();
            for (const auto id : ids) (void)tok.token_label(id);
        }
    });
}

}  // namespace attn::fuzz
