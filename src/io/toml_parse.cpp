// io/toml_parse.cpp — see toml_parse.hpp. The only toml::parse call in attn.
#include "io/toml_parse.hpp"

#include <sstream>

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

std::string toml_first_definition(std::string_view text, const std::string& description, const source_pos& second) {
    const auto at = description.find("redefine existing");
    const auto q1 = at == std::string::npos ? at : description.find('\'', at);
    const auto q2 = q1 == std::string::npos ? q1 : description.find('\'', q1 + 1);
    if (q2 == std::string::npos) return "";
    const std::string name = description.substr(q1 + 1, q2 - q1 - 1);
    std::istringstream in{std::string(text)};
    int n = 0;
    for (std::string line; std::getline(in, line) && ++n < second.line;) {
        const auto b = line.find_first_not_of(" \t");
        if (b == std::string::npos) continue;
        std::string head = line.substr(b);
        for (const std::string& form : {"[" + name + "]", "[\"" + name + "\"]", name + " ", name + "=", "\"" + name + "\""})
            if (head.compare(0, form.size(), form) == 0)
                return ": defined twice (first at " + source_pos{second.file, n, static_cast<int>(b) + 1}.str() +
                       "); keep one of them";
    }
    return "";
}


}  // namespace attn::io
