// model/json_scan.cpp — see json_scan.hpp. One cursor over the text; each function
// consumes exactly one JSON piece or fails with the offset where it went wrong.
#include "model/json_scan.hpp"

#include <charconv>
#include <cmath>
#include <set>

#include "io/utf8.hpp"
#include "model/file_error.hpp"

namespace attn::model {

namespace {
constexpr int max_depth = 64;
}

json_scan::json_scan(std::string_view text, std::string file, std::uint64_t base)
    : s_(text), file_(std::move(file)), base_(base) {}

void json_scan::fail_at(std::size_t at, const std::string& message) const {
    throw file_error("invalid", file_, offset(at), message);
}

void json_scan::skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
}

char json_scan::peek() {
    skip_ws();
    return i_ < s_.size() ? s_[i_] : '\0';
}

std::string json_scan::found_here() {
    const char c = peek();
    if (i_ >= s_.size()) return "the end of the JSON text";
    if (c == '"') return "a string";
    if (c == '{') return "an object";
    if (c == '[') return "an array";
    if (c == '-' || (c >= '0' && c <= '9')) return "a number";
    if (c == 't' || c == 'f') return "a boolean";
    if (c == 'n') return "null";
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
    return "the byte 0x" + std::string(1, "0123456789abcdef"[u >> 4]) + "0123456789abcdef"[u & 15];
}

void json_scan::expect(char c, const char* expected) {
    if (peek() != c) fail_at(i_, std::string("expected ") + expected + ", found " + found_here());
    ++i_;
}

void json_scan::enter() {
    if (++depth_ > max_depth) fail_at(i_, "JSON nested deeper than " + std::to_string(max_depth) + " levels");
}

std::uint32_t json_scan::hex4() {
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k, ++i_) {
        const char c = i_ < s_.size() ? s_[i_] : '\0';
        int d = -1;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        if (d < 0) fail_at(i_, "expected four hex digits after \\u in a string");
        v = v * 16 + static_cast<std::uint32_t>(d);
    }
    return v;
}

void json_scan::escape(std::string& out) {
    const std::size_t at = i_ - 1;  // the backslash
    const char c = i_ < s_.size() ? s_[i_++] : '\0';
    switch (c) {
        case '"': out += '"'; return;
        case '\\': out += '\\'; return;
        case '/': out += '/'; return;
        case 'b': out += '\b'; return;
        case 'f': out += '\f'; return;
        case 'n': out += '\n'; return;
        case 'r': out += '\r'; return;
        case 't': out += '\t'; return;
        case 'u': break;
        default: fail_at(at, "expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) in a string");
    }
    std::uint32_t cp = hex4();
    if (cp >= 0xDC00 && cp <= 0xDFFF) fail_at(at, "a lone low surrogate \\u escape in a string");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (s_.substr(i_, 2) != "\\u") fail_at(at, "a high surrogate \\u escape not followed by a low one");
        i_ += 2;
        const std::uint32_t lo = hex4();
        if (lo < 0xDC00 || lo > 0xDFFF) fail_at(at, "a high surrogate \\u escape not followed by a low one");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    io::append_utf8(out, cp);
}

// Copies one UTF-8 encoded character (two to four bytes), refusing invalid sequences.
void json_scan::utf8_char(std::string& out) {
    std::uint32_t cp = 0;
    const std::size_t len = io::utf8_at(s_, i_, &cp);  // the one UTF-8 decoder
    if (len < 2) fail_at(i_, "invalid UTF-8 in a string");
    out.append(s_.substr(i_, len));
    i_ += len;
}

std::string json_scan::string_value() {
    if (peek() != '"') fail_at(i_, "expected a string, found " + found_here());
    const std::size_t start = i_++;
    std::string out;
    while (true) {
        if (i_ >= s_.size()) fail_at(start, "a string that never ends");
        const unsigned char c = static_cast<unsigned char>(s_[i_]);
        if (c == '"') break;
        if (c < 0x20) fail_at(i_, "a control character inside a string (write it as an escape)");
        if (c == '\\') ++i_, escape(out);
        else if (c < 0x80) out += static_cast<char>(c), ++i_;
        else utf8_char(out);
    }
    ++i_;
    return out;
}

std::size_t json_scan::number_span() {
    std::size_t k = i_;
    const auto digit = [&](std::size_t j) { return j < s_.size() && s_[j] >= '0' && s_[j] <= '9'; };
    if (k < s_.size() && s_[k] == '-') ++k;
    if (!digit(k)) return 0;
    if (s_[k] == '0' && digit(k + 1)) fail_at(i_, "a number with a leading zero");
    while (digit(k)) ++k;
    if (k < s_.size() && s_[k] == '.') {
        if (!digit(++k)) fail_at(k, "expected a digit after the decimal point");
        while (digit(k)) ++k;
    }
    if (k < s_.size() && (s_[k] == 'e' || s_[k] == 'E')) {
        ++k;
        if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
        if (!digit(k)) fail_at(k, "expected a digit in the exponent");
        while (digit(k)) ++k;
    }
    return k - i_;
}

std::uint64_t json_scan::uint_value() {
    const char c = peek();
    const std::size_t at = i_;
    if (!(c >= '0' && c <= '9')) fail_at(at, "expected a non-negative integer, found " + found_here());
    const std::size_t n = number_span();
    const std::string_view text = s_.substr(at, n);
    if (text.find_first_of(".eE") != std::string_view::npos)
        fail_at(at, "expected an integer, found " + shown(text));
    std::uint64_t v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc()) fail_at(at, "an integer larger than 2^64 - 1: " + shown(text));
    i_ += n;
    return v;
}

double json_scan::number_value() {
    const char c = peek();
    const std::size_t at = i_;
    if (!(c == '-' || (c >= '0' && c <= '9'))) fail_at(at, "expected a number, found " + found_here());
    const std::size_t n = number_span();
    double v = 0;
    const auto r = std::from_chars(s_.data() + at, s_.data() + at + n, v);
    if (r.ec != std::errc() || !std::isfinite(v))
        fail_at(at, "a number out of range: " + shown(s_.substr(at, n)));
    i_ += n;
    return v;
}

bool json_scan::bool_value() {
    peek();
    if (s_.substr(i_, 4) == "true") return i_ += 4, true;
    if (s_.substr(i_, 5) == "false") return i_ += 5, false;
    fail_at(i_, "expected true or false, found " + found_here());
}

void json_scan::object(const std::function<void(const std::string&, std::size_t)>& on_member) {
    enter();
    expect('{', "an object ('{')");
    std::set<std::string> seen;
    if (peek() == '}') {
        ++i_, --depth_;
        return;
    }
    while (true) {
        if (peek() != '"') fail_at(i_, "expected a key (a string), found " + found_here());
        const std::size_t at = i_;  // the key's opening quote
        const std::string key = string_value();
        if (!seen.insert(key).second) fail_at(at, "the key \"" + shown(key) + "\" appears twice");
        expect(':', "':' after the key");
        on_member(key, at);
        const char c = peek();
        ++i_;
        if (c == '}') break;
        if (c != ',') fail_at(i_ - 1, "expected ',' or '}' after a value");
    }
    --depth_;
}

void json_scan::array(const std::function<void(std::size_t)>& on_item) {
    enter();
    expect('[', "an array ('[')");
    if (peek() == ']') {
        ++i_, --depth_;
        return;
    }
    for (std::size_t k = 0;; ++k) {
        on_item(k);
        const char c = peek();
        ++i_;
        if (c == ']') break;
        if (c != ',') fail_at(i_ - 1, "expected ',' or ']' after an element");
    }
    --depth_;
}

void json_scan::skip_value() {
    const char c = peek();
    if (c == '{') return object([&](const std::string&, std::size_t) { skip_value(); });
    if (c == '[') return array([&](std::size_t) { skip_value(); });
    if (c == '"') return (void)string_value();
    if (c == 't' || c == 'f') return (void)bool_value();
    if (c == 'n' && s_.substr(i_, 4) == "null") return (void)(i_ += 4);
    if (c == '-' || (c >= '0' && c <= '9')) return (void)number_value();
    fail_at(i_, "expected a JSON value, found " + found_here());
}

void json_scan::finish() {
    if (peek() != '\0' || i_ < s_.size()) fail_at(i_, "expected the end of the JSON text, found " + found_here());
}

}  // namespace attn::model
