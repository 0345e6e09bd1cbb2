// model/gguf_tokenizer.cpp — see gguf_tokenizer.hpp: the fields checked (lengths agree,
// ids inside the vocabulary, types known, scores finite, pieces unique) and built into
// SentencePiece BPE or byte-level BPE.
#include "model/gguf_tokenizer.hpp"

#include <cmath>

#include "model/byte_level.hpp"
#include "model/file_error.hpp"
#include "model/spm.hpp"
#include "model/tokenizer_data.hpp"
#include "model/utf8.hpp"

namespace attn::model {

namespace {

[[noreturn]] void fail(const gguf_tokenizer_fields& f, std::uint64_t at, const std::string& m) {
    throw file_error("invalid", f.file, at, m);
}

template <class T>
const gguf_field<T>& need(const gguf_tokenizer_fields& f, const std::optional<gguf_field<T>>& v, const char* key) {
    if (!v) fail(f, f.metadata_at, std::string("expected the key ") + key + " (the tokenizer needs it), found none");
    return *v;
}

std::size_t checked_tokens(const gguf_tokenizer_fields& f) {
    const auto& t = need(f, f.tokens, "tokenizer.ggml.tokens");
    if (t.value.empty()) fail(f, t.at, "expected tokenizer.ggml.tokens to hold tokens, found an empty array");
    if (t.value.size() >= max_token_id)
        fail(f, t.at, "expected fewer than " + std::to_string(max_token_id) + " tokens, found " + std::to_string(t.value.size()));
    if (f.types && f.types->value.size() != t.value.size())
        fail(f, f.types->at, "expected one token type per token (" + std::to_string(t.value.size()) + "), found " +
                                 std::to_string(f.types->value.size()));
    return t.value.size();
}

std::optional<std::uint32_t> checked_id(const gguf_tokenizer_fields& f, const std::optional<gguf_field<std::uint64_t>>& v,
                                        std::size_t n, const char* key) {
    if (!v) return std::nullopt;
    if (v->value >= n)
        fail(f, v->at, std::string("expected ") + key + " below the vocabulary size " + std::to_string(n) + ", found " +
                           std::to_string(v->value));
    return static_cast<std::uint32_t>(v->value);
}

piece_type checked_type(const gguf_tokenizer_fields& f, std::size_t id) {
    if (!f.types) return piece_type::normal;
    const std::int32_t t = f.types->value[id];
    if (t < 1 || t > 6)
        fail(f, f.types->at, "expected token types 1 … 6 (normal, unknown, control, user-defined, unused, byte), found " +
                                 std::to_string(t) + " for token " + std::to_string(id));
    return static_cast<piece_type>(t);
}

// "<0x0A>" → 10, else −1.
int byte_piece_value(const std::string& p) {
    if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>') return -1;
    int v = 0;
    for (int k = 3; k < 5; ++k) {
        const char c = p[static_cast<std::size_t>(k)];
        const int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

void check_utf8_piece(const gguf_tokenizer_fields& f, const std::string& p, std::size_t id) {
    try {
        (void)decode_utf8(p);
    } catch (const invalid_utf8& e) {
        fail(f, f.tokens->at, "expected token " + std::to_string(id) + " to be UTF-8 text, found " + e.detail);
    }
}

tokenizer build_spm(const gguf_tokenizer_fields& f) {
    const std::size_t n = checked_tokens(f);
    const auto& scores = need(f, f.scores, "tokenizer.ggml.scores");
    if (scores.value.size() != n)
        fail(f, scores.at, "expected one score per token (" + std::to_string(n) + "), found " + std::to_string(scores.value.size()));
    auto d = std::make_shared<spm_data>();
    d->pieces = f.tokens->value;
    d->scores = scores.value;
    d->byte_ids.fill(-1);
    d->types.resize(n);
    for (std::size_t id = 0; id < n; ++id) {
        check_utf8_piece(f, d->pieces[id], id);
        if (!std::isfinite(d->scores[id])) fail(f, scores.at, "expected finite scores, found a non-finite one for token " + std::to_string(id));
        const piece_type t = checked_type(f, id);
        d->types[id] = t;
        if (t == piece_type::byte) {
            const int b = byte_piece_value(d->pieces[id]);
            if (b < 0) fail(f, f.tokens->at, "expected a byte token spelled <0xNN>, found \"" + shown(d->pieces[id]) + "\" (token " + std::to_string(id) + ")");
            d->byte_ids[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(id);
        } else if (t == piece_type::normal || t == piece_type::user_defined || t == piece_type::unused) {
            if (d->pieces[id].empty()) fail(f, f.tokens->at, "expected a token of at least one byte, found \"\" (token " + std::to_string(id) + ")");
            if (!d->ids.emplace(d->pieces[id], static_cast<std::uint32_t>(id)).second)
                fail(f, f.tokens->at, "expected each token once, found \"" + shown(d->pieces[id]) + "\" again (token " + std::to_string(id) + ")");
            if (t == piece_type::user_defined) d->user_defined.push_back(static_cast<std::uint32_t>(id));
        }
    }
    d->bos = checked_id(f, f.bos, n, "tokenizer.ggml.bos_token_id");
    d->eos = checked_id(f, f.eos, n, "tokenizer.ggml.eos_token_id");
    d->add_bos = f.add_bos ? f.add_bos->value : true;
    d->add_space_prefix = f.add_space_prefix ? f.add_space_prefix->value : true;
    d->files = f.file;
    return tokenizer(std::make_shared<spm_tokenizer>(std::move(d)));
}

// A normal token of a GGUF gpt2 tokenizer, spelled in the byte-level alphabet, as bytes.
std::string gpt2_token_bytes(const gguf_tokenizer_fields& f, const std::string& spelled, std::size_t id) {
    std::string bytes;
    for (std::size_t k = 0; k < spelled.size();) {
        char32_t cp = 0;
        const std::size_t len = decode_one(spelled, k, cp);
        const int b = len ? char_byte(cp) : -1;
        if (b < 0)
            fail(f, f.tokens->at, "expected token " + std::to_string(id) + " spelled in GPT-2's byte-level alphabet, found \"" +
                                      shown(spelled) + "\"");
        bytes += static_cast<char>(b);
        k += len;
    }
    return bytes;
}

void gpt2_vocabulary(const gguf_tokenizer_fields& f, tokenizer_data& d) {
    const std::size_t n = checked_tokens(f);
    d.vocab.bytes.resize(n);
    for (std::size_t id = 0; id < n; ++id) {
        const std::string& tok = f.tokens->value[id];
        const piece_type t = checked_type(f, id);
        if (t == piece_type::control || t == piece_type::user_defined) {  // matched as added tokens
            check_utf8_piece(f, tok, id);
            if (tok.empty()) fail(f, f.tokens->at, "expected token " + std::to_string(id) + " to hold some text, found \"\"");
            d.added.push_back({tok, static_cast<std::uint32_t>(id), t == piece_type::control, false, false});
            d.vocab.bytes[id] = tok;
            continue;
        }
        std::string bytes = gpt2_token_bytes(f, tok, id);
        if (bytes.empty()) fail(f, f.tokens->at, "expected token " + std::to_string(id) + " of at least one byte, found \"\"");
        if (!d.vocab.ids.emplace(bytes, static_cast<std::uint32_t>(id)).second)
            fail(f, f.tokens->at, "expected each token once, found \"" + shown(tok) + "\" again (token " + std::to_string(id) + ")");
        d.vocab.bytes[id] = std::move(bytes);
    }
    for (int b = 0; b < 256; ++b) {
        const auto it = d.vocab.ids.find(std::string(1, static_cast<char>(b)));
        if (it == d.vocab.ids.end())
            fail(f, f.tokens->at, "expected a token for every byte (a byte-level BPE), found none for byte " + std::to_string(b));
        d.vocab.byte_ids[b] = it->second;
    }
}

void gpt2_merges(const gguf_tokenizer_fields& f, tokenizer_data& d) {
    const auto& m = need(f, f.merges, "tokenizer.ggml.merges");
    std::uint32_t rank = 0;
    for (const std::string& line : m.value) {
        const std::size_t sp = line.find(' ');
        if (sp == std::string::npos || sp == 0 || sp + 1 >= line.size() || line.find(' ', sp + 1) != std::string::npos)
            fail(f, m.at, "expected merges \"left right\" (two tokens, one space), found \"" + shown(line) + "\" (merge " + std::to_string(rank) + ")");
        const std::string l = gpt2_token_bytes(f, line.substr(0, sp), rank), r = gpt2_token_bytes(f, line.substr(sp + 1), rank);
        const auto li = d.vocab.ids.find(l), ri = d.vocab.ids.find(r), joined = d.vocab.ids.find(l + r);
        if (li == d.vocab.ids.end() || ri == d.vocab.ids.end() || joined == d.vocab.ids.end())
            fail(f, m.at, "expected merge " + std::to_string(rank) + " (\"" + shown(line) + "\") and its result among the tokens, found one missing");
        d.merges.pairs[merge_table::key(li->second, ri->second)] = {rank++, joined->second};
    }
}

tokenizer build_gpt2(const gguf_tokenizer_fields& f) {
    auto d = std::make_shared<tokenizer_data>();
    gpt2_vocabulary(f, *d);
    gpt2_merges(f, *d);
    const std::string pre = f.pre ? f.pre->value : "default";
    d->pre = pretokenizer_for_gguf(pre);
    if (!d->pre)
        fail(f, f.pre->at, "GGUF pre-tokenizer \"" + shown(pre) + "\" is not supported; supported: " + pretokenizer_names());
    d->ignore_merges = std::string(d->pre->name) == "llama3";  // llama.cpp: Llama 3 takes a whole-token piece whole
    const std::size_t n = d->vocab.bytes.size();
    index_added_tokens(*d, n, f.file);
    // A GGUF's added tokens have entries in vocab.bytes; index_added_tokens keeps them added.
    const auto bos = checked_id(f, f.bos, n, "tokenizer.ggml.bos_token_id");
    if (bos && f.add_bos && f.add_bos->value) d->prefix.push_back(*bos);
    d->eos = checked_id(f, f.eos, n, "tokenizer.ggml.eos_token_id");
    d->files = f.file;
    d->kind = "byte-level BPE (GGUF)";
    return tokenizer(std::make_shared<bpe_tokenizer>(std::move(d)));
}

}  // namespace

const std::vector<gguf_tokenizer_kind>& gguf_tokenizer_kinds() {
    static const std::vector<gguf_tokenizer_kind> kinds = {
        {"llama", "SentencePiece BPE", build_spm},
        {"gpt2", "byte-level BPE", build_gpt2},
    };
    return kinds;
}

tokenizer tokenizer_from_gguf(const gguf_tokenizer_fields& f) {
    const auto& m = need(f, f.model, "tokenizer.ggml.model");
    std::string supported;
    for (const auto& k : gguf_tokenizer_kinds()) {
        if (m.value == k.model) return k.build(f);
        supported += std::string(supported.empty() ? "" : ", ") + k.model + " (" + k.words + ")";
    }
    fail(f, m.at, "GGUF tokenizer \"" + shown(m.value) + "\" is not supported; supported: " + supported);
}

}  // namespace attn::model
