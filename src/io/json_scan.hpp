// model/json_scan.hpp — a strict JSON reader that knows where it is: the safetensors
// header and a checkpoint's config.json are untrusted, and every error must name the
// byte offset in the file. The reader walks the text once (linear time), never
// recurses deeper than 64 levels, refuses duplicate keys, invalid UTF-8, control
// characters in strings, numbers with leading zeros and integers past 2^64 − 1.
// The caller drives it: object() hands each key and its offset to a callback that
// reads the value with string_value(), uint_value(), number_value(), array(),
// object() or skip_value().
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace attn::model {

class json_scan {
public:
    // text: the JSON; file: named in errors; base: the file offset of text[0].
    json_scan(std::string_view text, std::string file, std::uint64_t base);

    // Throws model::file_error (reason "invalid") at the file offset of text[at].
    [[noreturn]] void fail_at(std::size_t at, const std::string& message) const;
    std::size_t pos() const { return i_; }
    std::uint64_t offset(std::size_t at) const { return base_ + at; }
    const std::string& file() const { return file_; }

    char peek();  // the next character after whitespace, '\0' at the end
    std::string string_value();
    std::uint64_t uint_value();  // a non-negative integer (no sign, fraction or exponent)
    double number_value();       // any JSON number, finite
    bool bool_value();
    // Each member: on_member(key, offset of the key's opening quote in text); the
    // callback reads the value. Duplicate keys are refused.
    void object(const std::function<void(const std::string& key, std::size_t at)>& on_member);
    // Each element: on_item(index); the callback reads the element.
    void array(const std::function<void(std::size_t index)>& on_item);
    void skip_value();
    void finish();  // only whitespace may follow the top-level value

    // What the next value is, in words, for "expected …, found …" messages.
    std::string found_here();

private:
    std::string_view s_;
    std::string file_;
    std::uint64_t base_;
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

}  // namespace attn::model
