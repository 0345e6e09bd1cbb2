// model/tokenizer.cpp — see tokenizer.hpp: finding the files, encoding piece by piece
// with a cache of the pieces already merged in this text, and the tokens' labels.
#include "model/tokenizer.hpp"

#include <cstdio>
#include <filesystem>
#include <unordered_map>

#include "core/internal_error.hpp"
#include "io/input_error.hpp"
#include "io/terminal_safe.hpp"
#include "model/byte_level.hpp"
#include "model/pretokenize.hpp"
#include "model/tokenizer_files.hpp"
#include "model/unicode_classes.hpp"
#include "model/utf8.hpp"

namespace attn::model {

struct tokenizer_data {
    vocabulary vocab;
    merge_table merges;
    std::string files;
};

namespace {

namespace fs = std::filesystem;

struct file_pair {
    const char* vocab;
    const char* merges;
};
constexpr file_pair hugging_face{"vocab.json", "merges.txt"};
constexpr file_pair openai{"encoder.json", "vocab.bpe"};

bool path_exists(const fs::path& p) {
    std::error_code ec;
    return fs::exists(p, ec);
}

// The pair of files the folder holds (Hugging Face's names first).
file_pair find_files(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw io::input_error("not-found", {dir, 0, 0},
                              "expected a folder holding vocab.json + merges.txt or encoder.json + vocab.bpe, found " +
                                  std::string(path_exists(dir) ? "something that is not a folder" : "nothing there"));
    for (const file_pair& p : {hugging_face, openai}) {
        const bool v = path_exists(fs::path(dir) / p.vocab), m = path_exists(fs::path(dir) / p.merges);
        if (v && m) return p;
        if (v != m)
            throw io::input_error("not-found", {dir, 0, 0},
                                  std::string("expected ") + p.vocab + " and " + p.merges + " together, found only " +
                                      (v ? p.vocab : p.merges));
    }
    throw io::input_error("not-found", {dir, 0, 0},
                          "expected vocab.json + merges.txt (Hugging Face) or encoder.json + vocab.bpe (OpenAI) in "
                          "this folder, found neither");
}

// The label of one code point of a token, or "" when it prints as itself.
std::string whitespace_label(char32_t cp) {
    switch (cp) {
        case U' ': return "␣";
        case U'\n': return "\\n";
        case U'\r': return "\\r";
        case U'\t': return "\\t";
        default: break;
    }
    if (classify(cp) != char_class::space) return "";
    char buf[16];
    std::snprintf(buf, sizeof buf, cp < 0x80 ? "\\x%02x" : "\\u%04x", static_cast<unsigned>(cp));
    return buf;
}

constexpr std::size_t cache_piece_bytes = 64;     // longer pieces are merged each time
constexpr std::size_t cache_max_entries = 1 << 16;  // then the cache stops growing

}  // namespace

bpe_tokenizer bpe_tokenizer::load(const std::string& dir) {
    const file_pair p = find_files(dir);
    auto d = std::make_shared<tokenizer_data>();
    d->vocab = read_vocabulary((fs::path(dir) / p.vocab).string());
    d->merges = read_merges((fs::path(dir) / p.merges).string(), d->vocab);
    d->files = std::string(p.vocab) + " + " + p.merges;
    bpe_tokenizer t;
    t.d_ = std::move(d);
    return t;
}

bpe_tokenizer bpe_tokenizer::parse(const std::string& vocab_name, std::string_view vocab_text,
                                  const std::string& merges_name, std::string_view merges_text) {
    auto d = std::make_shared<tokenizer_data>();
    d->vocab = parse_vocabulary(vocab_name, vocab_text);
    d->merges = parse_merges(merges_name, merges_text, d->vocab);
    d->files = vocab_name + " + " + merges_name;
    bpe_tokenizer t;
    t.d_ = std::move(d);
    return t;
}

std::vector<std::uint32_t> bpe_tokenizer::encode(std::string_view utf8) const {
    std::vector<std::uint32_t> ids;                                   // [n_tokens]
    std::unordered_map<std::string_view, std::vector<std::uint32_t>> cache;  // piece → its tokens
    std::vector<std::uint32_t> symbols;                               // [piece bytes] one id per byte
    for (const pretoken& p : pretokenize(utf8)) {
        const std::string_view piece = utf8.substr(p.begin, p.end - p.begin);
        const auto hit = cache.find(piece);
        if (hit != cache.end()) {
            ids.insert(ids.end(), hit->second.begin(), hit->second.end());
            continue;
        }
        symbols.clear();
        for (const char c : piece) symbols.push_back(d_->vocab.byte_ids[static_cast<std::uint8_t>(c)]);
        std::vector<std::uint32_t> merged = bpe_merge(symbols, d_->merges);
        ids.insert(ids.end(), merged.begin(), merged.end());
        if (piece.size() <= cache_piece_bytes && cache.size() < cache_max_entries) cache.emplace(piece, std::move(merged));
    }
    return ids;
}

std::string bpe_tokenizer::token_bytes(std::uint32_t id) const {
    if (id >= d_->vocab.bytes.size())
        throw internal_error("token id " + std::to_string(id) + " is not below the vocabulary size " +
                                std::to_string(d_->vocab.bytes.size()));
    return d_->vocab.bytes[id];
}

std::string bpe_tokenizer::token_piece(std::uint32_t id) const { return spell_bytes(token_bytes(id)); }

std::string bpe_tokenizer::token_label(std::uint32_t id) const {
    const std::string bytes = token_bytes(id);
    std::string out;
    for (std::size_t k = 0; k < bytes.size();) {
        char32_t cp = 0;
        const std::size_t len = decode_one(bytes, k, cp);
        if (len == 0) {  // part of a character: terminal_safe shows it as \xNN
            out += bytes[k++];
            continue;
        }
        const std::string named = whitespace_label(cp);
        out += named.empty() ? bytes.substr(k, len) : named;
        k += len;
    }
    return io::terminal_safe(out);
}

std::string bpe_tokenizer::decode(const std::vector<std::uint32_t>& ids) const {
    std::string out;
    for (const std::uint32_t id : ids) out += token_bytes(id);
    return out;
}

std::size_t bpe_tokenizer::vocab_size() const { return d_->vocab.bytes.size(); }
std::size_t bpe_tokenizer::merge_count() const { return d_->merges.pairs.size(); }
const std::string& bpe_tokenizer::files() const { return d_->files; }

}  // namespace attn::model
