// io/terminal_safe.cpp — see terminal_safe.hpp. One UTF-8 walk; each code point is
// kept or written as a visible escape.
#include "io/terminal_safe.hpp"

#include "io/utf8.hpp"

#include <cstdint>
#include <cstdio>

namespace attn::io {

namespace {

void hex_byte(std::string& out, unsigned char b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", b);
    out += buf;
}

void hex_code_point(std::string& out, std::uint32_t cp) {
    char buf[12];
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
    out += buf;
}

bool is_bidi_control(std::uint32_t cp) {
    return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string escape(std::string_view s, bool keep_layout) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        std::uint32_t cp = 0;
        const std::size_t len = utf8_at(s, i, &cp);
        if (len == 0) {  // not UTF-8: show the byte, never send it
            hex_byte(out, static_cast<unsigned char>(s[i]));
            ++i;
            continue;
        }
        if (cp < 0x20 || cp == 0x7F) {
            if (keep_layout && (cp == '\n' || cp == '\t')) out += static_cast<char>(cp);
            else hex_byte(out, static_cast<unsigned char>(cp));
        } else if ((cp >= 0x80 && cp <= 0x9F) || is_bidi_control(cp)) {
            hex_code_point(out, cp);
        } else {
            out.append(s.substr(i, len));
        }
        i += len;
    }
    return out;
}

}  // namespace

std::string terminal_safe(std::string_view s) {
    // Fast path: plain printable ASCII needs no walk.
    bool plain = true;
    for (char c : s) {
        const auto b = static_cast<unsigned char>(c);
        if (b < 0x20 || b >= 0x7F) {
            plain = false;
            break;
        }
    }
    return plain ? std::string(s) : escape(s, false);
}

std::string terminal_safe_text(std::string_view s) { return escape(s, true); }

std::string spreadsheet_safe(std::string_view cell) {
    if (!cell.empty()) {
        const char c = cell.front();
        if (c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r') return "'" + std::string(cell);
    }
    return std::string(cell);
}

std::string xml_safe(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') out += ' ';
                else out += c;
        }
    }
    return out;
}

}  // namespace attn::io
