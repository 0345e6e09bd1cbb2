// model/tokenizer.cpp — see tokenizer.hpp: byte-level BPE run on its data
// (model/tokenizer_data.hpp): the text cut at added tokens, each other section split
// by the pattern and merged piece by piece with a cache of the pieces already merged in
// this text; decoding; the tokens' labels; GPT-2's two files found in a folder.
#include "model/tokenizer.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <unordered_map>

#include "core/internal_error.hpp"
#include "io/input_error.hpp"
#include "io/terminal_safe.hpp"
#include "model/byte_level.hpp"
#include "model/pretokenize.hpp"
#include "model/tokenizer_data.hpp"
#include "model/tokenizer_files.hpp"
#include "model/unicode_classes.hpp"
#include "model/unicode_nfc.hpp"
#include "model/utf8.hpp"
#include "model/added_tokens.hpp"

namespace attn::model {

untokenizable_text::untokenizable_text(std::size_t at, const std::string& d)
    : error("cannot tokenize the text exactly at byte " + std::to_string(at) + ": " + d), offset(at), detail(d) {}

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
                          "expected tokenizer.json, vocab.json + merges.txt (Hugging Face) or encoder.json + vocab.bpe "
                          "(OpenAI) in this folder, found none of them");
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

using piece_cache = std::unordered_map<std::string, std::vector<std::uint32_t>>;  // piece → its tokens

// The tokens of one piece: whole when ignore_merges and it is a token, else merged.
void encode_piece(const tokenizer_data& d, std::string_view piece, piece_cache& cache, std::vector<std::uint32_t>& ids) {
    const std::string key(piece);
    if (const auto hit = cache.find(key); hit != cache.end()) {
        ids.insert(ids.end(), hit->second.begin(), hit->second.end());
        return;
    }
    std::vector<std::uint32_t> merged;  // [tokens of the piece]
    const auto whole = d.ignore_merges ? d.vocab.ids.find(key) : d.vocab.ids.end();
    if (whole != d.vocab.ids.end()) {
        merged.push_back(whole->second);
    } else {
        std::vector<std::uint32_t> symbols;  // [piece bytes] one id per byte
        for (const char c : piece) symbols.push_back(d.vocab.byte_ids[static_cast<std::uint8_t>(c)]);
        merged = bpe_merge(symbols, d.merges);
    }
    ids.insert(ids.end(), merged.begin(), merged.end());
    if (piece.size() <= cache_piece_bytes && cache.size() < cache_max_entries) cache.emplace(key, std::move(merged));
}

// The tokens of one section of text between added tokens; `at` is its byte offset.
void encode_section(const tokenizer_data& d, std::string_view section, std::size_t at, piece_cache& cache,
                    std::vector<std::uint32_t>& ids) {
    if (d.nfc) {
        if (const auto bad = first_nfc_unstable(section))
            throw untokenizable_text(at + bad->offset, "this tokenizer normalizes text to Unicode NFC, which attn does "
                                                       "not do, and " + bad->name + " here may change under it "
                                                       "(write the text in NFC, with precomposed characters)");
    }
    std::string prefixed;  // the section with the space add_prefix_space puts before it
    if (d.add_prefix_space && (section.empty() || section.front() != ' ')) {
        prefixed = " " + std::string(section);
        section = prefixed;
    }
    for (const pretoken& p : pretokenize(section, *d.pre)) encode_piece(d, section.substr(p.begin, p.end - p.begin), cache, ids);
}

}  // namespace

void index_added_tokens(tokenizer_data& d, std::size_t n, const std::string& where) {
    d.added_of_id.assign(std::max(n, d.vocab.bytes.size()), -1);
    for (std::size_t k = 0; k < d.added.size(); ++k) {
        const std::uint32_t id = d.added[k].id;
        if (id >= d.added_of_id.size()) d.added_of_id.resize(std::size_t{id} + 1, -1);
        d.added_of_id[id] = static_cast<std::int32_t>(k);
    }
    for (std::size_t id = d.vocab.bytes.size(); id < d.added_of_id.size(); ++id)
        if (d.added_of_id[id] < 0)
            throw io::input_error("invalid", {where, 0, 0},
                                  "expected every token id below " + std::to_string(d.added_of_id.size()) +
                                      " to be a token, found none with id " + std::to_string(id));
}

bpe_tokenizer bpe_tokenizer::load(const std::string& dir) {
    const file_pair p = find_files(dir);
    auto d = std::make_shared<tokenizer_data>();
    d->vocab = read_vocabulary((fs::path(dir) / p.vocab).string());
    d->merges = read_merges((fs::path(dir) / p.merges).string(), d->vocab);
    d->files = std::string(p.vocab) + " + " + p.merges;
    d->kind = "GPT-2 byte-level BPE";
    index_added_tokens(*d, d->vocab.bytes.size(), dir);
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
    d->kind = "GPT-2 byte-level BPE";
    index_added_tokens(*d, d->vocab.bytes.size(), vocab_name);
    bpe_tokenizer t;
    t.d_ = std::move(d);
    return t;
}

std::vector<std::uint32_t> bpe_tokenizer::encode(std::string_view utf8) const {
    (void)decode_utf8(utf8);  // invalid UTF-8 is refused at its byte before anything else
    std::vector<std::uint32_t> ids(d_->prefix);  // [n_tokens]
    piece_cache cache;
    for (const text_section& s : split_added(utf8, d_->added)) {
        if (s.added >= 0) ids.push_back(d_->added[static_cast<std::size_t>(s.added)].id);
        else encode_section(*d_, utf8.substr(s.begin, s.end - s.begin), s.begin, cache, ids);
    }
    ids.insert(ids.end(), d_->suffix.begin(), d_->suffix.end());
    return ids;
}

std::string bpe_tokenizer::token_bytes(std::uint32_t id) const {
    if (id >= d_->vocab_size())
        throw internal_error("token id " + std::to_string(id) + " is not below the vocabulary size " +
                             std::to_string(d_->vocab_size()));
    const std::int32_t a = d_->added_of_id[id];
    return a >= 0 ? d_->added[static_cast<std::size_t>(a)].content : d_->vocab.bytes[id];
}

std::string bpe_tokenizer::token_piece(std::uint32_t id) const {
    const std::string bytes = token_bytes(id);
    return d_->added_of_id[id] >= 0 ? bytes : spell_bytes(bytes);
}

bool bpe_tokenizer::is_control(std::uint32_t id) const {
    (void)token_bytes(id);
    const std::int32_t a = d_->added_of_id[id];
    return a >= 0 && d_->added[static_cast<std::size_t>(a)].control;
}

std::string bpe_tokenizer::token_label(std::uint32_t id) const {
    return is_control(id) ? io::terminal_safe(token_piece(id)) : bytes_label(token_bytes(id));
}

std::string bpe_tokenizer::decode(const std::vector<std::uint32_t>& ids) const {
    std::size_t first = 0, last = ids.size();  // the ids added around the text are dropped
    if (!d_->prefix.empty() && ids.size() >= d_->prefix.size() && std::equal(d_->prefix.begin(), d_->prefix.end(), ids.begin()))
        first = d_->prefix.size();
    if (!d_->suffix.empty() && last - first >= d_->suffix.size() &&
        std::equal(d_->suffix.begin(), d_->suffix.end(), ids.end() - static_cast<std::ptrdiff_t>(d_->suffix.size())))
        last -= d_->suffix.size();
    std::string out;
    for (std::size_t k = first; k < last; ++k) out += token_bytes(ids[k]);
    return out;
}

std::size_t bpe_tokenizer::vocab_size() const { return d_->vocab_size(); }
std::size_t bpe_tokenizer::merge_count() const { return d_->merges.pairs.size(); }
const std::string& bpe_tokenizer::files() const { return d_->files; }
std::optional<std::uint32_t> bpe_tokenizer::eos_id() const { return d_->eos; }

std::string bpe_tokenizer::description() const {
    std::string s = d_->kind + " (" + d_->files + "), " + std::to_string(vocab_size()) + " tokens";
    if (d_->pre != &gpt2_pretokenizer()) s += std::string(", ") + d_->pre->words;
    return s;
}

std::string bytes_label(std::string_view bytes) {
    std::string out;
    for (std::size_t k = 0; k < bytes.size();) {
        char32_t cp = 0;
        const std::size_t len = decode_one(bytes, k, cp);
        if (len == 0) {  // part of a character: terminal_safe shows it as \xNN
            out += bytes[k++];
            continue;
        }
        const std::string named = whitespace_label(cp);
        out += named.empty() ? std::string(bytes.substr(k, len)) : named;
        k += len;
    }
    return io::terminal_safe(out);
}

std::string tokenizer::token_label(std::uint32_t id) const {
    if (m_->is_control(id)) return io::terminal_safe(m_->token_piece(id));
    return bytes_label(m_->token_bytes(id));
}

}  // namespace attn::model
