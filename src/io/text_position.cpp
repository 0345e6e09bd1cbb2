// io/text_position.cpp — see text_position.hpp.
#include "io/text_position.hpp"

namespace attn::io {

source_pos text_position::to(std::size_t offset) {
    for (; at < offset && at < text.size(); ++at) {
        const auto c = static_cast<unsigned char>(text[at]);
        if (c == '\n') {
            ++pos.line;
            pos.column = 1;
        } else if ((c & 0xC0) != 0x80) {
            ++pos.column;
        }
    }
    return pos;
}

source_pos position_in(const std::string& file, std::string_view text, std::size_t offset) {
    return text_position(file, text).to(offset);
}

}  // namespace attn::io
