// model/byte_level.cpp — see byte_level.hpp. Both directions are built once.
#include "model/byte_level.hpp"

#include <array>

#include "model/utf8.hpp"

namespace attn::model {

namespace {

bool stands_for_itself(int b) {
    return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct alphabet {
    std::array<char32_t, 256> to_char{};  // [256] byte → character
    std::array<std::int16_t, 0x144> to_byte{};  // [324] character → byte (−1: none)
};

const alphabet& the_alphabet() {
    static const alphabet a = [] {
        alphabet t;
        t.to_byte.fill(-1);
        int shifted = 0;  // the next of U+0100 … for bytes that are not printable
        for (int b = 0; b < 256; ++b) {
            const char32_t c = stands_for_itself(b) ? static_cast<char32_t>(b) : static_cast<char32_t>(0x100 + shifted++);
            t.to_char[static_cast<std::size_t>(b)] = c;
            t.to_byte[c] = static_cast<std::int16_t>(b);
        }
        return t;
    }();
    return a;
}

}  // namespace

char32_t byte_char(std::uint8_t b) { return the_alphabet().to_char[b]; }

int char_byte(char32_t c) { return c < 0x144 ? the_alphabet().to_byte[c] : -1; }

std::string spell_bytes(std::string_view bytes) {
    std::string out;
    for (const char ch : bytes) append_utf8(out, byte_char(static_cast<std::uint8_t>(ch)));
    return out;
}

}  // namespace attn::model
