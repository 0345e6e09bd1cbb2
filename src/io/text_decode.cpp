// io/text_decode.cpp — see text_decode.hpp.
#include "io/text_decode.hpp"

#include <cstdint>

#include "io/input_error.hpp"
#include "io/utf8.hpp"

namespace attn::io {

namespace {

struct encoding {
    const char* mark;
    std::size_t unit;  // bytes per code unit: 2 (UTF-16) or 4 (UTF-32)
    bool big_endian;
    const char* name;
};

// The code unit at byte i.
std::uint32_t unit_at(const std::string& t, std::size_t i, const encoding& e) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < e.unit; ++k) {
        const auto b = static_cast<unsigned char>(t[i + (e.big_endian ? k : e.unit - 1 - k)]);
        v = (v << 8) | b;
    }
    return v;
}

[[noreturn]] void refuse(const std::string& file, std::size_t at, const encoding& e, const std::string& what) {
    throw input_error(error::as_written{}, "not-utf8", {file, 0, 0},
                      file + ": byte " + std::to_string(at) + ": the file starts as " + e.name + " (its byte-order mark) but " +
                          what + "; save it as UTF-8");
}

// UTF-16 or UTF-32 after the mark, as UTF-8.
std::string to_utf8(const std::string& t, const encoding& e, const std::string& file) {
    const std::size_t start = e.unit == 4 ? 4 : 2;
    if ((t.size() - start) % e.unit != 0) refuse(file, t.size(), e, "its length is not a whole number of characters");
    std::string out;  // [≤ 2 × text bytes]
    out.reserve(t.size());
    for (std::size_t i = start; i < t.size(); i += e.unit) {
        std::uint32_t cp = unit_at(t, i, e);
        if (e.unit == 2 && cp >= 0xD800 && cp <= 0xDBFF && i + 2 < t.size()) {
            const std::uint32_t low = unit_at(t, i + 2, e);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                i += 2;
            }
        }
        if (!is_scalar_value(cp)) refuse(file, i, e, "holds a code unit that is no character");
        append_utf8(out, cp);
    }
    return out;
}

}  // namespace

std::string decoded_text(const std::string& text, const std::string& file) {
    static const encoding marks[] = {  // UTF-32 LE first: its mark begins with UTF-16 LE's
        {"\xFF\xFE\x00\x00", 4, false, "UTF-32 LE"}, {"\x00\x00\xFE\xFF", 4, true, "UTF-32 BE"},
        {"\xFF\xFE", 2, false, "UTF-16 LE"},         {"\xFE\xFF", 2, true, "UTF-16 BE"}};
    std::string out = text;
    for (const auto& e : marks) {
        const std::size_t n = e.unit == 4 ? 4 : 2;
        if (text.size() >= n && text.compare(0, n, e.mark, n) == 0) {
            out = to_utf8(text, e, file);
            break;
        }
    }
    for (std::size_t i = out.find('\r'); i != std::string::npos; i = out.find('\r', i + 1))
        if (i + 1 == out.size() || out[i + 1] != '\n') out[i] = '\n';  // a lone CR ends a line
    return out;
}

}  // namespace attn::io
