// io/text_fold.cpp — see text_fold.hpp.
#include "io/text_fold.hpp"

#include <cctype>

namespace attn::io {

std::string trimmed(std::string_view text, std::string_view spaces) {
    const auto b = text.find_first_not_of(spaces);
    if (b == std::string_view::npos) return "";
    return std::string(text.substr(b, text.find_last_not_of(spaces) - b + 1));
}

std::string ascii_lower(std::string text) {
    for (char& c : text)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return text;
}

std::string folded_words(std::string_view text) {
    std::string out;
    bool space = true;
    for (unsigned char c : text) {
        const bool word = std::isalnum(c) || c >= 0x80;  // keep non-ASCII letters (Hangul, ×, é) as they are
        if (word) {
            out += static_cast<char>(c < 0x80 ? std::tolower(c) : c);
            space = false;
        } else if (!space) {
            out += ' ';
            space = true;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

}  // namespace attn::io
