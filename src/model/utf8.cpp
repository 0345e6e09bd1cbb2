// model/utf8.cpp — see utf8.hpp. The decoding itself is io/utf8's (the one decoder); this
// file turns its verdict into the tokenizer's error at the failing byte.
#include "model/utf8.hpp"

namespace attn::model {

invalid_utf8::invalid_utf8(std::size_t off, const std::string& d)
    : error("invalid UTF-8 at byte " + std::to_string(off) + ": " + d), offset(off), detail(d) {
    reason = "not-utf8";
}

std::size_t decode_one(std::string_view text, std::size_t i, char32_t& cp) {
    std::uint32_t v = 0;
    const std::size_t len = io::utf8_at(text, i, &v);
    cp = static_cast<char32_t>(v);
    return len;
}

std::vector<code_point> decode_utf8(std::string_view text) {
    if (text.size() >= (std::size_t{1} << 32)) throw invalid_utf8(0, "expected a text under 4 GiB");
    std::vector<code_point> out;  // [n_code_points]
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        std::uint32_t cp = 0;
        const std::size_t len = io::utf8_at(text, i, &cp);
        if (len == 0) {
            std::size_t at = i;
            const std::string why = io::utf8_problem(text, i, &at);
            throw invalid_utf8(at, why);
        }
        out.push_back({static_cast<char32_t>(cp), static_cast<std::uint32_t>(i)});
        i += len;
    }
    return out;
}

}  // namespace attn::model
