// io/value_tree.hpp — a TOML or JSON document as one tree of values, each with its
// file:line:col, so the code that reads it and its error messages ("answers.json:4:12:
// expected a number, found a string") do not care which format it was. Students' answer
// files are read this way (grade/submission), and a line typed at the practice prompt
// becomes the same tree (io/typed_line).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/input_error.hpp"

namespace attn::io {

struct value_node {
    enum class type { null, boolean, number, string, array, table };
    type kind = type::null;
    bool flag = false;
    double number = 0.0;  // may be nan or ±inf when the file wrote so (TOML nan, JSON NaN)
    std::string text;
    std::vector<value_node> items;                            // array entries in order
    // An array of numbers only, read from JSON, is packed: its entries here [length()],
    // items empty (a node costs ~150 bytes, a number 8: a 50 MB answer of numbers is held
    // in a small multiple of the file, not gigabytes). The first json_pack_places entries
    // keep their line and column; a later one's place is the array's.
    std::vector<double> numbers;
    std::vector<std::pair<int, int>> number_places;  // [min(length, json_pack_places)] line, column
    std::vector<std::pair<std::string, value_node>> fields;  // table entries in file order
    source_pos where;

    const value_node* get(const std::string& key) const {
        for (const auto& [k, v] : fields)
            if (k == key) return &v;
        return nullptr;
    }
    // An array's entry count (packed or not); 1 for any other value (one pick, one row).
    std::size_t length() const { return is_array() ? items.size() + numbers.size() : 1; }
    // Entry i of length(): a copy (a packed number as a node at the array's place).
    value_node entry_at(std::size_t i) const {
        if (!is_array()) return *this;
        if (i < items.size()) return items[i];
        value_node n;
        n.kind = type::number;
        n.number = numbers[i - items.size()];
        n.where = where;
        if (i < number_places.size()) n.where.line = number_places[i].first, n.where.column = number_places[i].second;
        return n;
    }
    // An array's entries, or the value itself as the one entry (one pick, one row). Not
    // for a packed array (its numbers are no nodes): check numbers.empty(), or use
    // length() and entry_at().
    std::vector<const value_node*> entries() const {
        if (!is_array()) return {this};
        std::vector<const value_node*> out;
        for (const auto& e : items) out.push_back(&e);
        return out;
    }
    bool is_number() const { return kind == type::number; }
    bool is_string() const { return kind == type::string; }
    bool is_array() const { return kind == type::array; }
    bool is_table() const { return kind == type::table; }
};

// "a number", "a string", "an array" ... for "expected X, found Y" messages.
std::string type_name(const value_node& v);

// A string, or a number as text ("%g"; a non-finite one in words, never the letters
// nan); nullopt for anything else.
std::optional<std::string> value_text(const value_node& v);

// JSON (RFC 8259, plus NaN, Infinity and -Infinity as Python's json module writes them),
// read with io/json_scan: nlohmann::json keeps no positions, and a student whose answer
// is a string where a number belongs deserves the exact place. A syntax error throws
// input_error (reason "syntax") at file:line:col; nesting deeper than 64 levels is
// refused rather than recursed into. Memory stays a small multiple of the text: an
// array of numbers only is packed (value_node::numbers), and a document of more than
// max(2^16, bytes / 64) other values (arrays, tables, strings, numbers outside arrays)
// is refused (reason "too-large") at the value past the limit.
constexpr std::size_t json_pack_places = 64;
value_node read_json_tree(const std::string& text, const std::string& file);
// TOML through io/toml_parse (a key defined twice names its first definition too).
// Dates and times are kept as the string "(a date or time)".
value_node read_toml_tree(const std::string& text, const std::string& file);

// JSON by the extension (.json, .toml), else by the first character ('{').
bool looks_like_json(const std::string& path, const std::string& text);

// A user's document as a tree, checked in the order a person would want it reported:
// empty, not UTF-8 (or a NUL byte), then syntax. A UTF-8 byte order mark is skipped;
// UTF-16/32 with a mark is decoded and lone CRs end lines (io/text_decode.hpp). A
// syntax error in a file that reads in the other format says so ("this looks like TOML,
// not JSON: … rename it .toml"). Every refusal is an input_error with a reason word
// (empty, not-utf8, syntax, too-deep).
value_node read_document(const std::string& text, const std::string& file, bool json);

}  // namespace attn::io
