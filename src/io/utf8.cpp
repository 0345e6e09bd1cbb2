// io/utf8.cpp — see utf8.hpp. The one decoder follows the Unicode standard's table of
// well-formed byte sequences (Table 3-7): the second byte's range depends on the lead,
// which rules out overlong forms, surrogates and code points above U+10FFFF in one
// step. utf8_at, valid_utf8 and utf8_problem are that one walk with or without words.
#include "io/utf8.hpp"

#include <cstdio>

namespace attn::io {

namespace {

std::string hex_byte(unsigned char b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02X", b);
    return buf;
}

// The length of the sequence a lead byte starts (0: not a lead byte), and the range
// its second byte must be in (Table 3-7).
struct lead_rule {
    std::size_t length;
    unsigned char lo, hi;
};

lead_rule rule_for(unsigned char b) {
    if (b < 0x80) return {1, 0, 0};
    if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
    if (b == 0xE0) return {3, 0xA0, 0xBF};  // no overlong forms
    if (b == 0xED) return {3, 0x80, 0x9F};  // no surrogates
    if (b >= 0xE1 && b <= 0xEF) return {3, 0x80, 0xBF};
    if (b == 0xF0) return {4, 0x90, 0xBF};  // no overlong forms
    if (b == 0xF4) return {4, 0x80, 0x8F};  // nothing above U+10FFFF
    if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
    return {0, 0, 0};
}

// Checks the sequence at `i`; returns its length, or 0 and (when `why` is given) the
// problem in words and the failing byte's offset in `at`.
std::size_t check_one(std::string_view t, std::size_t i, std::uint32_t& cp, std::string* why, std::size_t* at) {
    const auto b0 = static_cast<unsigned char>(t[i]);
    const lead_rule r = rule_for(b0);
    if (r.length == 0) {
        if (why) {
            *at = i;
            *why = "expected the first byte of a character, found " + hex_byte(b0) +
                   (b0 >= 0x80 && b0 <= 0xBF ? " (a continuation byte)" : " (never valid in UTF-8)");
        }
        return 0;
    }
    if (r.length == 1) {
        cp = b0;
        return 1;
    }
    cp = b0 & (0x7F >> r.length);
    for (std::size_t k = 1; k < r.length; ++k) {
        const unsigned char lo = (k == 1) ? r.lo : 0x80, hi = (k == 1) ? r.hi : 0xBF;
        if (i + k >= t.size()) {
            if (why) {
                *at = i + k;
                *why = "expected " + std::to_string(r.length - k) + " more byte(s) of the character that " +
                       hex_byte(b0) + " starts, found the end of the text";
            }
            return 0;
        }
        const auto b = static_cast<unsigned char>(t[i + k]);
        if (b < lo || b > hi) {
            if (why) {
                *at = i + k;
                *why = "expected a byte in " + hex_byte(lo) + "–" + hex_byte(hi) + " after " + hex_byte(b0) +
                       ", found " + hex_byte(b);
            }
            return 0;
        }
        cp = (cp << 6) | (b & 0x3F);
    }
    return r.length;
}

}  // namespace

std::size_t utf8_at(std::string_view s, std::size_t i, std::uint32_t* cp) {
    std::uint32_t v = 0;
    const std::size_t len = check_one(s, i, v, nullptr, nullptr);
    if (len) *cp = v;
    return len;
}

std::string utf8_problem(std::string_view s, std::size_t i, std::size_t* at) {
    std::uint32_t cp = 0;
    std::string why;
    *at = i;
    if (check_one(s, i, cp, &why, at) != 0) return "";
    return why;
}

bool valid_utf8(std::string_view text, std::size_t* bad_offset) {
    std::uint32_t cp = 0;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t len = utf8_at(text, i, &cp);
        if (len == 0) {
            if (bad_offset) *bad_offset = i;
            return false;
        }
        i += len;
    }
    return true;
}

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::size_t utf8_boundary(std::string_view s, std::size_t n) {
    while (n > 0 && n < s.size() && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return n;
}

bool is_scalar_value(std::uint32_t cp) { return cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF); }

}  // namespace attn::io
