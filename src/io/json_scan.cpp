// io/json_scan.cpp — see json_scan.hpp. One cursor over the text; each function
// consumes exactly one JSON piece or fails with the index where it went wrong.
#include "io/json_scan.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/internal_error.hpp"
#include "io/terminal_safe.hpp"
#include "io/utf8.hpp"

namespace attn::io {

namespace {
constexpr int max_depth = 64;

// Text from the file as a message shows it: terminal-safe, cut to about 80 bytes at a
// character boundary (a key or a number may be megabytes), as model/file_error.hpp's.
std::string shown(std::string_view text) {
    const std::size_t n = utf8_boundary(text, text.size() <= 96 ? text.size() : 80);
    return terminal_safe(text.substr(0, n)) + (n < text.size() ? "…" : "");
}

std::string byte_hex(unsigned char u) {
    return std::string("the byte 0x") + "0123456789abcdef"[u >> 4] + "0123456789abcdef"[u & 15];
}
}  // namespace

json_scan::json_scan(std::string_view text, fail_fn fail, place_fn place)
    : s_(text), fail_(std::move(fail)), place_(std::move(place)) {}

void json_scan::fail_at(std::size_t at, const std::string& message) const {
    fail_(at, message);
    throw internal_error("json_scan: the fail callback returned");
}

void json_scan::skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
}

char json_scan::peek() {
    skip_ws();
    return i_ < s_.size() ? s_[i_] : '\0';
}

std::string json_scan::found_char() {
    peek();
    if (i_ >= s_.size()) return "the end of the JSON text";
    const unsigned char u = static_cast<unsigned char>(s_[i_]);
    if (u >= 0x20 && u < 0x7f) return std::string("'") + s_[i_] + "'";
    return byte_hex(u);
}

std::string json_scan::found_here() {
    const char c = peek();
    if (c == '"') return "a string";
    if (c == '{') return "an object";
    if (c == '[') return "an array";
    if (c == '-' || (c >= '0' && c <= '9')) return "a number";
    if (c == 't' || c == 'f') return "a boolean";
    if (c == 'n') return "null";
    return found_char();
}

void json_scan::expect(char c, const char* expected) {
    if (peek() != c) fail_at(i_, std::string("expected ") + expected + ", found " + found_char());
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
        default:
            fail_at(at, "unknown escape \\" + shown(std::string_view(&c, c ? 1 : 0)) +
                            " in a string (expected \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)");
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
    append_utf8(out, cp);
}

// Copies one UTF-8 encoded character (two to four bytes), refusing invalid sequences.
void json_scan::utf8_char(std::string& out) {
    std::uint32_t cp = 0;
    const std::size_t len = utf8_at(s_, i_, &cp);  // the one UTF-8 decoder
    if (len < 2) fail_at(i_, "invalid UTF-8 in a string");
    out.append(s_.substr(i_, len));
    i_ += len;
}

std::string json_scan::string_value() {
    if (peek() != '"') fail_at(i_, "expected a string, found " + found_here());
    const std::size_t start = i_++;
    std::string out;
    while (true) {
        if (i_ >= s_.size()) fail_at(start, "a string that is never closed");
        const unsigned char c = static_cast<unsigned char>(s_[i_]);
        if (c == '"') break;
        if (c < 0x20) fail_at(i_, "a control character inside a string (write it as an escape: \\n, \\t …)");
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

double json_scan::number_value(bool finite_only) {
    const char c = peek();
    const std::size_t at = i_;
    if (!(c == '-' || (c >= '0' && c <= '9'))) fail_at(at, "expected a number, found " + found_here());
    const std::size_t n = number_span();
    if (n == 0) fail_at(at + 1, "expected a digit after '-'");
    i_ += n;
    if (!finite_only) return std::strtod(std::string(s_.substr(at, n)).c_str(), nullptr);  // ±inf past double's range
    double v = 0;
    const auto r = std::from_chars(s_.data() + at, s_.data() + at + n, v);
    if (r.ec != std::errc() || !std::isfinite(v)) fail_at(at, "a number out of range: " + shown(s_.substr(at, n)));
    return v;
}

bool json_scan::literal(std::string_view word) {
    peek();
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
}

bool json_scan::bool_value() {
    if (literal("true")) return true;
    if (literal("false")) return false;
    fail_at(i_, "expected true or false, found " + found_here());
}

void json_scan::object(const std::function<void(const std::string&, std::size_t)>& on_member) {
    enter();
    expect('{', "an object ('{')");
    std::map<std::string, std::size_t> seen;  // key → its opening quote
    if (peek() == '}') {
        ++i_, --depth_;
        return;
    }
    while (true) {
        if (peek() != '"') fail_at(i_, "expected a key (a string) in an object, found " + found_char());
        const std::size_t at = i_;  // the key's opening quote
        const std::string key = string_value();
        const auto [first, fresh] = seen.emplace(key, at);
        if (!fresh)
            fail_at(at, "key \"" + shown(key) + "\" appears twice in one object (first at " + place_(first->second) +
                            "); keep one of them");
        expect(':', "':' after an object key");
        on_member(key, at);
        if (peek() == '}') break;
        expect(',', "',' or '}' in an object");
    }
    ++i_, --depth_;
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
        if (peek() == ']') break;
        expect(',', "',' or ']' in an array");
    }
    ++i_, --depth_;
}

void json_scan::skip_value() {
    const char c = peek();
    if (c == '{') return object([&](const std::string&, std::size_t) { skip_value(); });
    if (c == '[') return array([&](std::size_t) { skip_value(); });
    if (c == '"') return (void)string_value();
    if (c == 't' || c == 'f') return (void)bool_value();
    if (literal("null")) return;
    if (c == '-' || (c >= '0' && c <= '9')) return (void)number_value();
    fail_at(i_, "expected a JSON value, found " + found_here());
}

void json_scan::finish() {
    if (peek() != '\0' || i_ < s_.size()) fail_at(i_, "expected the end of the JSON text after the top-level value, found " + found_char());
}

}  // namespace attn::io
