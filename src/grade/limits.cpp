// grade/limits.cpp — see limits.hpp.
#include "grade/limits.hpp"

namespace attn::grade {

std::string capped_text(const std::string& text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    return text.substr(0, cut) + " … [" + std::to_string(text.size() - cut) + " more bytes cut]";
}

void cap_lines(std::vector<std::string>& lines, std::size_t max_lines, std::size_t max_bytes, const std::string& what) {
    const std::size_t more = lines.size() > max_lines ? lines.size() - max_lines : 0;
    if (more) lines.resize(max_lines);
    for (auto& l : lines) l = capped_text(l, max_bytes);
    if (more) lines.push_back("… and " + std::to_string(more) + " more " + what + " (cut)");
}

}  // namespace attn::grade
