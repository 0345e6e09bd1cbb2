// io/toml_words.cpp — see toml_words.hpp.
#include "io/toml_words.hpp"

namespace attn::io {

std::string toml_type_name(const toml::node* node) {
    if (!node) return "nothing";
    switch (node->type()) {
        case toml::node_type::string: return "a string";
        case toml::node_type::integer: return "an integer";
        case toml::node_type::floating_point: return "a number";
        case toml::node_type::boolean: return "a boolean";
        case toml::node_type::array: return "an array";
        case toml::node_type::table: return "a table";
        default: return "a date or time";
    }
}

}  // namespace attn::io
