// model/utf8.cpp — see utf8.hpp. The decoder follows the Unicode standard's table of
// well-formed byte sequences (Table 3-7): the second byte's range depends on the lead.
#include "model/utf8.hpp"

#include <cstdio>

namespace attn::model {

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

// Checks the sequence at `i`; returns its length or describes the problem in `why`
// and the failing byte's offset in `at`.
std::size_t check_one(std::string_view t, std::size_t i, char32_t& cp, std::string* why, std::size_t* at) {
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

invalid_utf8::invalid_utf8(std::size_t off, const std::string& d)
    : error("invalid UTF-8 at byte " + std::to_string(off) + ": " + d), offset(off), detail(d) {
    reason = "not-utf8";
}

std::size_t decode_one(std::string_view text, std::size_t i, char32_t& cp) {
    return check_one(text, i, cp, nullptr, nullptr);
}

std::vector<code_point> decode_utf8(std::string_view text) {
    if (text.size() >= (std::size_t{1} << 32)) throw invalid_utf8(0, "expected a text under 4 GiB");
    std::vector<code_point> out;  // [n_code_points]
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        char32_t cp = 0;
        std::string why;
        std::size_t at = 0;
        const std::size_t len = check_one(text, i, cp, &why, &at);
        if (len == 0) throw invalid_utf8(at, why);
        out.push_back({cp, static_cast<std::uint32_t>(i)});
        i += len;
    }
    return out;
}

}  // namespace attn::model
