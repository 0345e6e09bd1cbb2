// grade/answer_value.hpp — one value of a submission (TOML or JSON), with where it is.
// Both file formats are read into this one tree so grading and its error messages
// ("answers.json:4:12: expected a number, found a string") do not care which it was.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lessons/lesson.hpp"

namespace attn::grade {

using lessons::source_pos;

struct answer_value {
    enum class type { null, boolean, number, string, array, table };
    type kind = type::null;
    bool flag = false;
    double number = 0.0;  // may be nan or ±inf when the file wrote so (TOML nan, JSON "nan")
    std::string text;
    std::vector<answer_value> items;                            // array entries in order
    std::vector<std::pair<std::string, answer_value>> fields;  // table entries in file order
    source_pos where;

    const answer_value* get(const std::string& key) const {
        for (const auto& [k, v] : fields)
            if (k == key) return &v;
        return nullptr;
    }
    // An array's entries, or the value itself as the one entry (one pick, one row).
    std::vector<const answer_value*> entries() const {
        if (!is_array()) return {this};
        std::vector<const answer_value*> out;
        for (const auto& e : items) out.push_back(&e);
        return out;
    }
    bool is_number() const { return kind == type::number; }
    bool is_string() const { return kind == type::string; }
    bool is_array() const { return kind == type::array; }
    bool is_table() const { return kind == type::table; }
};

// "a number", "a string", "an array" ... for "expected X, found Y" messages.
std::string type_name(const answer_value& v);

}  // namespace attn::grade
