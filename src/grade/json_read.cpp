// grade/json_read.cpp — see json_read.hpp. Recursive descent over the bytes,
// counting lines and columns (columns in bytes, 1-based, as toml++ does).
#include "grade/json_read.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include "io/utf8.hpp"

#include "grade/submission.hpp"

namespace attn::grade {

namespace {

constexpr int max_depth = 64;

struct json_parser {
    const std::string& s;
    const std::string& file;
    std::size_t i = 0;
    int line = 1, col = 1;

    source_pos here() const { return {file, line, col}; }

    [[noreturn]] void fail(const std::string& message) const {
        throw submission_error("syntax", here(), here().str() + ": JSON syntax: " + message);
    }

    std::string found() const {
        if (i >= s.size()) return "the end of the file";
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c >= 0x7f) return "byte 0x" + std::string(1, "0123456789abcdef"[c >> 4]) + "0123456789abcdef"[c & 15];
        return "'" + std::string(1, s[i]) + "'";
    }

    void advance() {
        if (s[i] == '\n') {
            ++line;
            col = 1;
        } else if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
            ++col;  // count characters, not UTF-8 continuation bytes
        }
        ++i;
    }

    void skip_space() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) advance();
    }

    void expect(char c, const char* what) {
        skip_space();
        if (i >= s.size() || s[i] != c) fail(std::string("expected ") + what + ", found " + found());
        advance();
    }

    answer_value value(int depth) {
        skip_space();
        if (depth > max_depth) fail("nesting deeper than " + std::to_string(max_depth) + " levels");
        answer_value v;
        v.where = here();
        if (i >= s.size()) fail("expected a value, found the end of the file");
        const char c = s[i];
        if (c == '{') return object(std::move(v), depth);
        if (c == '[') return array(std::move(v), depth);
        if (c == '"') {
            v.kind = answer_value::type::string;
            v.text = string_body();
            return v;
        }
        if (word(v)) return v;
        if (c == '-' || (c >= '0' && c <= '9')) {
            v.kind = answer_value::type::number;
            v.number = number_body();
            return v;
        }
        fail("expected a value (number, string, array, object, true, false or null), found " + found());
    }

    answer_value object(answer_value v, int depth) {  // by value: returned by move
        v.kind = answer_value::type::table;
        advance();
        skip_space();
        if (i < s.size() && s[i] == '}') {
            advance();
            return v;
        }
        std::vector<source_pos> key_at;  // [fields] where each key was written
        for (;;) {
            skip_space();
            if (i >= s.size() || s[i] != '"') fail("expected a \"key\" in an object, found " + found());
            const source_pos key_pos = here();
            std::string key = string_body();
            for (std::size_t k = 0; k < v.fields.size(); ++k)
                if (v.fields[k].first == key)
                    throw submission_error("syntax", key_pos,
                                           key_pos.str() + ": key \"" + key + "\" appears twice in one object (first at " +
                                               key_at[k].str() + "); keep one of them");
            key_at.push_back(key_pos);
            expect(':', "':' after an object key");
            v.fields.emplace_back(std::move(key), value(depth + 1));
            skip_space();
            if (i < s.size() && s[i] == ',') {
                advance();
                continue;
            }
            expect('}', "',' or '}' in an object");
            return v;
        }
    }

    answer_value array(answer_value v, int depth) {
        v.kind = answer_value::type::array;
        advance();
        skip_space();
        if (i < s.size() && s[i] == ']') {
            advance();
            return v;
        }
        for (;;) {
            v.items.push_back(value(depth + 1));
            skip_space();
            if (i < s.size() && s[i] == ',') {
                advance();
                continue;
            }
            expect(']', "',' or ']' in an array");
            return v;
        }
    }

    // true, false, null, and NaN, Infinity and -Infinity as Python's json module writes
    // them (json.dump's default allow_nan=True): not standard JSON, but what students'
    // code produces. -Infinity is tried before a number's '-'.
    bool word(answer_value& v) {
        using t = answer_value::type;
        const double inf = std::numeric_limits<double>::infinity();
        struct literal {
            const char* text;
            t kind;
            double number;
            bool flag;
        };
        for (const literal& w : {literal{"NaN", t::number, std::numeric_limits<double>::quiet_NaN(), false},
                                 literal{"Infinity", t::number, inf, false}, literal{"-Infinity", t::number, -inf, false},
                                 literal{"true", t::boolean, 0.0, true}, literal{"false", t::boolean, 0.0, false},
                                 literal{"null", t::null, 0.0, false}}) {
            const std::string text(w.text);
            if (s.compare(i, text.size(), text) != 0) continue;
            for (std::size_t k = 0; k < text.size(); ++k) advance();
            v.kind = w.kind;
            if (w.kind == t::number) v.number = w.number;
            if (w.kind == t::boolean) v.flag = w.flag;
            return true;
        }
        return false;
    }

    double number_body() {
        const std::size_t start = i;
        if (s[i] == '-') advance();
        if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) fail("expected a digit, found " + found());
        if (s[i] == '0') {
            advance();
        } else {
            while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) advance();
        }
        if (i < s.size() && s[i] == '.') {
            advance();
            if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
                fail("expected a digit after the decimal point, found " + found());
            while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) advance();
        }
        if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
            advance();
            if (i < s.size() && (s[i] == '+' || s[i] == '-')) advance();
            if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
                fail("expected a digit in the exponent, found " + found());
            while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) advance();
        }
        // strtod on a copy: the text is known to be a valid JSON number here.
        const std::string text = s.substr(start, i - start);
        return std::strtod(text.c_str(), nullptr);
    }

    unsigned hex4() {
        unsigned cp = 0;
        for (int k = 0; k < 4; ++k) {
            if (i >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i])))
                fail("expected 4 hex digits after \\u, found " + found());
            const char h = s[i];
            cp = cp * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
            advance();
        }
        return cp;
    }

    std::string string_body() {
        advance();  // the opening quote
        std::string out;
        for (;;) {
            if (i >= s.size()) fail("a string is not closed before the end of the file");
            const char c = s[i];
            if (c == '"') {
                advance();
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20) fail("a control character inside a string (write \\n, \\t ...)");
            if (c != '\\') {
                out += c;
                advance();
                continue;
            }
            advance();
            if (i >= s.size()) fail("a string is not closed before the end of the file");
            const char e = s[i];
            advance();
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned cp = hex4();
                    if (cp >= 0xD800 && cp < 0xDC00) {  // a surrogate pair
                        if (s.compare(i, 2, "\\u") != 0) fail("a lone UTF-16 surrogate in \\u escape");
                        advance();
                        advance();
                        const unsigned lo = hex4();
                        if (lo < 0xDC00 || lo > 0xDFFF) fail("a lone UTF-16 surrogate in \\u escape");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    } else if (cp >= 0xDC00 && cp < 0xE000) {
                        fail("a lone UTF-16 surrogate in \\u escape");
                    }
                    io::append_utf8(out, cp);
                    break;
                }
                default: fail(std::string("unknown escape \\") + e);
            }
        }
    }
};

}  // namespace

answer_value parse_json_answer(const std::string& text, const std::string& file) {
    json_parser p{text, file};
    answer_value v = p.value(0);
    p.skip_space();
    if (p.i != text.size()) p.fail("expected the end of the file after the top-level value, found " + p.found());
    return v;
}

}  // namespace attn::grade
