// io/toml_parse.cpp — see toml_parse.hpp. The only toml::parse call in attn.
#include "io/toml_parse.hpp"

#include "io/toml_depth.hpp"

namespace attn::io {

toml::table parse_toml(std::string_view text, const std::string& display_path, const toml_syntax_hint& hint) {
    check_toml_nesting(text, display_path);  // toml++ recurses once per level
    try {
        return toml::parse(text, display_path);
    } catch (const toml::parse_error& e) {
        const auto& b = e.source().begin;
        const source_pos p{display_path, static_cast<int>(b.line), static_cast<int>(b.column)};
        const std::string d(e.description());
        throw input_error("syntax", p, "TOML syntax: " + d + (hint ? hint(d, p) : std::string()));
    }
}

}  // namespace attn::io
