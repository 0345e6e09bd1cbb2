// io/json_scan.hpp — the one JSON reader of attn: a strict scanner that knows where it
// is. Its inputs are untrusted (a safetensors header, a checkpoint's config.json, a
// student's answers.json), so every error names its place: the caller's `fail` turns
// the byte index into "file: byte N" or "file:line:col" and throws. The reader walks
// the text once (linear time), never recurses deeper than 64 levels, refuses duplicate
// keys, invalid UTF-8, control characters in strings and numbers with leading zeros.
// The caller drives it: object() hands each key and its index to a callback that reads
// the value with string_value(), uint_value(), number_value(), literal(), array(),
// object() or skip_value().
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace attn::io {

class json_scan {
public:
    // fail(at, message): throws the caller's error for the place text[at]; it must not return.
    using fail_fn = std::function<void(std::size_t at, const std::string& message)>;
    // place(at): the caller's words for where text[at] is ("byte 1234", "answers.json:2:3"),
    // for a message that names a second place (a duplicate key's first occurrence).
    using place_fn = std::function<std::string(std::size_t at)>;
    json_scan(std::string_view text, fail_fn fail, place_fn place);

    [[noreturn]] void fail_at(std::size_t at, const std::string& message) const;
    std::size_t pos() const { return i_; }

    char peek();  // the next character after whitespace, '\0' at the end
    std::string string_value();
    std::uint64_t uint_value();  // a non-negative integer (no sign, fraction or exponent), below 2^64
    // Any JSON number; finite_only refuses one out of double's range, else it reads as ±inf
    // (or 0), as strtod reads it.
    double number_value(bool finite_only = true);
    bool bool_value();
    // Consumes `word` (true, null, NaN …) when it is the next text; false when it is not.
    bool literal(std::string_view word);
    // Each member: on_member(key, index of the key's opening quote); the callback reads
    // the value. Duplicate keys are refused.
    void object(const std::function<void(const std::string& key, std::size_t at)>& on_member);
    // Each element: on_item(index); the callback reads the element.
    void array(const std::function<void(std::size_t index)>& on_item);
    void skip_value();
    void finish();  // only whitespace may follow the top-level value

    // What the next value is, in words, for "expected a string, found a number".
    std::string found_here();
    // The next character itself ('x', the byte 0x07, the end of the JSON text), for
    // syntax errors: "expected ',' or ']' in an array, found '3'".
    std::string found_char();

private:
    std::string_view s_;
    fail_fn fail_;
    place_fn place_;
    std::size_t i_ = 0;
    int depth_ = 0;

    void skip_ws();
    void expect(char c, const char* expected);
    void enter();
    std::uint32_t hex4();
    void utf8_char(std::string& out);
    void escape(std::string& out);
    std::size_t number_span();  // the length of the JSON number at i_, 0 when none
};

}  // namespace attn::io
