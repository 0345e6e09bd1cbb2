// model/vocab_json.cpp — reads a vocabulary file (encoder.json / vocab.json): a flat JSON
// object of strings to non-negative integers, parsed by hand so that every problem,
// including the ones found after parsing (an id twice, a character outside the
// byte-level alphabet), names its line and column.
#include <cstdio>
#include <string>
#include <vector>

#include "io/input_read.hpp"
#include "model/byte_level.hpp"
#include "model/tokenizer_files.hpp"
#include "model/utf8.hpp"

namespace attn::model {

namespace {

// Describes the byte at `i` for "found …" in messages.
std::string found_at(std::string_view t, std::size_t i) {
    if (i >= t.size()) return "the end of the file";
    const auto c = static_cast<unsigned char>(t[i]);
    if (c >= 0x21 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
    return buf;
}

class vocab_parser {
public:
    vocab_parser(std::string path, std::string_view text) : path_(std::move(path)), t_(text) {}

    vocabulary parse();

private:
    [[noreturn]] void fail(std::size_t at, const std::string& message) const {
        throw io::input_error("syntax", position_in(path_, t_, at), message);
    }
    void skip_space() {
        while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
    }
    void expect(char c, const char* what) {
        skip_space();
        if (i_ >= t_.size() || t_[i_] != c) fail(i_, std::string("expected ") + what + ", found " + found_at(t_, i_));
        ++i_;
    }
    char32_t hex4();
    char32_t escape();
    std::string string_value();  // the string's code points, UTF-8
    std::uint32_t id_value();
    struct entry {
        std::string bytes;
        std::uint32_t id;
        std::size_t at;  // the key's offset
    };
    std::string key_bytes(const std::string& key, std::size_t key_at) const;
    void place(std::vector<entry>& entries, vocabulary& v) const;

    std::string path_;
    std::string_view t_;
    std::size_t i_ = 0;
};

char32_t vocab_parser::hex4() {
    char32_t v = 0;
    for (int k = 0; k < 4; ++k, ++i_) {
        const char c = i_ < t_.size() ? t_[i_] : '\0';
        const int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (d < 0) fail(i_, "expected four hexadecimal digits after \\u, found " + found_at(t_, i_));
        v = v * 16 + static_cast<char32_t>(d);
    }
    return v;
}

char32_t vocab_parser::escape() {
    const std::size_t at = i_;
    const char c = ++i_ < t_.size() ? t_[i_] : '\0';
    ++i_;
    switch (c) {
        case '"': return U'"';
        case '\\': return U'\\';
        case '/': return U'/';
        case 'b': return U'\b';
        case 'f': return U'\f';
        case 'n': return U'\n';
        case 'r': return U'\r';
        case 't': return U'\t';
        case 'u': break;
        default: fail(at, "expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX), found \\" + found_at(t_, at + 1));
    }
    const char32_t hi = hex4();
    if (hi >= 0xDC00 && hi <= 0xDFFF) fail(at, "expected a character, found a lone low surrogate \\u escape");
    if (hi < 0xD800 || hi > 0xDBFF) return hi;
    if (t_.substr(i_, 2) != "\\u") fail(at, "expected a low surrogate \\u escape after a high one, found " + found_at(t_, i_));
    i_ += 2;
    const char32_t lo = hex4();
    if (lo < 0xDC00 || lo > 0xDFFF) fail(at, "expected a low surrogate \\u escape after a high one");
    return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
}

std::string vocab_parser::string_value() {
    expect('"', "a token in double quotes");
    std::string out;
    while (true) {
        if (i_ >= t_.size()) fail(i_, "expected the closing '\"' of the token, found the end of the file");
        const auto c = static_cast<unsigned char>(t_[i_]);
        if (c == '"') break;
        if (c < 0x20) fail(i_, "expected a character of the token, found a control byte (escape it in JSON)");
        if (c == '\\') {
            append_utf8(out, escape());
            continue;
        }
        char32_t cp = 0;
        const std::size_t len = decode_one(t_, i_, cp);
        if (len == 0) fail(i_, "expected UTF-8 text, found " + found_at(t_, i_) + " (not valid UTF-8 here)");
        out.append(t_.substr(i_, len));
        i_ += len;
    }
    ++i_;
    return out;
}

std::uint32_t vocab_parser::id_value() {
    skip_space();
    const std::size_t at = i_;
    if (i_ >= t_.size() || t_[i_] < '0' || t_[i_] > '9')
        fail(i_, "expected a token id (an integer ≥ 0), found " + found_at(t_, i_));
    std::uint64_t v = 0;
    while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') {
        v = v * 10 + static_cast<std::uint64_t>(t_[i_++] - '0');
        if (v >= max_token_id) fail(at, "expected a token id below " + std::to_string(max_token_id) + ", found a larger one");
    }
    if (i_ < t_.size() && (t_[i_] == '.' || t_[i_] == 'e' || t_[i_] == 'E'))
        fail(at, "expected a whole-number token id, found a fraction or exponent");
    if (i_ - at > 1 && t_[at] == '0') fail(at, "expected a token id without leading zeros");
    return static_cast<std::uint32_t>(v);
}

// The key's raw bytes: its characters must be of the byte-level alphabet.
std::string vocab_parser::key_bytes(const std::string& key, std::size_t key_at) const {
    std::string bytes;
    for (std::size_t k = 0; k < key.size();) {
        char32_t cp = 0;
        const std::size_t len = decode_one(key, k, cp);
        const int b = char_byte(cp);
        if (b < 0) {
            fail(key_at, "expected a token spelled in GPT-2's byte-level alphabet (256 characters, Ġ for a space), found '" +
                             key.substr(k, len) + "' in it");
        }
        bytes += static_cast<char>(b);
        k += len;
    }
    if (bytes.empty()) fail(key_at, "expected a token of at least one byte, found \"\"");
    return bytes;
}

// Puts the entries at their ids: n entries must have the ids 0 … n−1, each once (an id
// is checked against n before anything is allocated for it).
void vocab_parser::place(std::vector<entry>& entries, vocabulary& v) const {
    const std::size_t n = entries.size();
    std::vector<std::size_t> id_at(n, std::string::npos);  // [n] where each id was defined
    v.bytes.resize(n);
    for (entry& e : entries) {
        if (e.id >= n)
            fail(e.at, "expected ids 0 … " + std::to_string(n - 1) + " for " + std::to_string(n) + " tokens, found id " +
                           std::to_string(e.id));
        if (id_at[e.id] != std::string::npos)
            fail(e.at, "expected each id once, found id " + std::to_string(e.id) + " again (first at line " +
                           std::to_string(position_in(path_, t_, id_at[e.id]).line) + ")");
        id_at[e.id] = e.at;
        v.bytes[e.id] = std::move(e.bytes);
    }
}

vocabulary vocab_parser::parse() {
    vocabulary v;
    std::vector<entry> entries;  // [n] in file order
    if (t_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // a byte-order mark
    expect('{', "'{' opening the vocabulary object");
    skip_space();
    if (i_ < t_.size() && t_[i_] == '}') fail(i_, "expected at least one token, found an empty object");
    while (true) {
        skip_space();
        const std::size_t key_at = i_;
        const std::string key = string_value();
        expect(':', "':' after the token");
        const std::uint32_t id = id_value();
        std::string bytes = key_bytes(key, key_at);
        if (!v.ids.emplace(bytes, id).second) fail(key_at, "expected each token once, found \"" + key + "\" again");
        entries.push_back({std::move(bytes), id, key_at});
        skip_space();
        if (i_ < t_.size() && t_[i_] == ',') {
            ++i_;
            continue;
        }
        expect('}', "',' or '}' after the id");
        break;
    }
    skip_space();
    if (i_ < t_.size()) fail(i_, "expected the end of the file after '}', found " + found_at(t_, i_));
    place(entries, v);
    for (int b = 0; b < 256; ++b) {
        const auto it = v.ids.find(std::string(1, static_cast<char>(b)));
        if (it == v.ids.end()) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "expected a token for every byte, found none for byte 0x%02X", b);
            throw io::input_error("invalid", {path_, 0, 0}, buf);
        }
        v.byte_ids[b] = it->second;
    }
    return v;
}

}  // namespace

vocabulary read_vocabulary(const std::string& path) {
    io::input_limits limits;
    limits.max_bytes = max_vocab_file_bytes;
    limits.what = "vocabulary";
    return parse_vocabulary(path, io::read_input_file(path, limits));
}

vocabulary parse_vocabulary(const std::string& name, std::string_view text) { return vocab_parser(name, text).parse(); }

}  // namespace attn::model
