// io/value_tree.cpp — see value_tree.hpp.
#include "io/value_tree.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include <toml++/toml.h>

#include "io/json_scan.hpp"
#include "io/text_decode.hpp"
#include "io/text_position.hpp"
#include "io/toml_parse.hpp"
#include "io/toml_read.hpp"
#include "io/utf8.hpp"

namespace attn::io {

std::string type_name(const value_node& v) {
    switch (v.kind) {
        case value_node::type::null: return "null";
        case value_node::type::boolean: return "true/false";
        case value_node::type::number: return "a number";
        case value_node::type::string: return "a string";
        case value_node::type::array: return "an array";
        case value_node::type::table: return "a table";
    }
    return "a value";
}

std::optional<std::string> value_text(const value_node& v) {
    if (v.is_string()) return v.text;
    if (!v.is_number()) return std::nullopt;
    if (!std::isfinite(v.number)) return std::string(std::isnan(v.number) ? "not-a-number" : "infinity");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v.number);
    return std::string(buf);
}

namespace {

value_node from_toml(const toml::node& n, const std::string& file) {
    value_node v;
    v.where = toml_pos(file, &n);  // the one node → file:line:col helper
    if (const auto* t = n.as_table()) {
        v.kind = value_node::type::table;
        for (const auto& [key, value] : *t) v.fields.emplace_back(std::string(key.str()), from_toml(value, file));
    } else if (const auto* a = n.as_array()) {
        v.kind = value_node::type::array;
        for (const auto& e : *a) v.items.push_back(from_toml(e, file));
    } else if (n.is_string()) {
        v.kind = value_node::type::string;
        v.text = *n.value<std::string>();
    } else if (n.is_number()) {
        v.kind = value_node::type::number;
        v.number = toml_number(n);
    } else if (n.is_boolean()) {
        v.kind = value_node::type::boolean;
        v.flag = *n.value<bool>();
    } else {
        v.kind = value_node::type::string;  // dates and times: kept as a word, graded as wrong
        v.text = "(a date or time)";
    }
    return v;
}

// The JSON tree, built as json_scan walks the text, with the line:column of every value
// (columns count characters, 1-based, as toml++ does).
struct json_builder {
    json_scan& js;
    text_position lines;  // values come in file order: the text is counted once
    std::size_t max_nodes;  // value nodes the text may make (packed numbers are not nodes)
    std::size_t text_size;  // bytes of the text
    std::size_t nodes = 0;

    // One more node, or the refusal at text[at] past max_nodes.
    void count_node(std::size_t at) {
        if (++nodes <= max_nodes) return;
        const source_pos p = lines.to(at);
        throw input_error(error::as_written{}, "too-large", p,
                          p.str() + ": more than " + std::to_string(max_nodes) +
                              " values (arrays, tables, strings) for a text of this size; an answer file holds a few "
                              "tables of numbers");
    }

    // An array's next entry: packed while every entry so far is a number; unpacked (each
    // number a node at its kept place) when an entry of another kind follows.
    void array_entry(value_node& v) {
        if (!v.items.empty()) return v.items.push_back(value());
        const std::size_t at = js.pos();
        value_node e = value_uncounted();
        if (e.is_number()) {
            if (v.numbers.size() < json_pack_places) v.number_places.emplace_back(e.where.line, e.where.column);
            make_room(v.numbers, 2, text_size);  // "0,": 2 bytes at least
            return v.numbers.push_back(e.number);
        }
        unpack(v);
        count_node(at);
        v.items.push_back(std::move(e));
    }
    // A long array about to grow is given, once, room for every entry the rest of the text
    // could still hold (`least` bytes each, at most `most`): address space only, which the
    // kernel backs as it is written, so the array is never copied (a doubling vector holds
    // its old and new copies at once: twice its entries at the peak).
    void make_room(std::vector<double>& entries, std::size_t least, std::size_t most) {
        if (entries.size() < 4096 || entries.size() < entries.capacity()) return;
        const std::size_t left = text_size > js.pos() ? (text_size - js.pos()) / least + 1 : 1;
        entries.reserve(entries.size() + std::max<std::size_t>(1, std::min(left, most)));
    }

    // make_room's guess was for the rest of the text: an array that ended far short of it
    // gives the address space back (a copy of this array only).
    static void fit(std::vector<double>& entries) {
        if (entries.capacity() > 2 * entries.size() + 4096) entries.shrink_to_fit();
    }

    void unpack(value_node& v) {
        std::vector<value_node> items;  // [numbers] each number as a node
        for (std::size_t i = 0; i < v.numbers.size(); ++i) {
            count_node(js.pos());
            items.push_back(v.entry_at(i));  // v.items is still empty: entry i is numbers[i]
        }
        v.items = std::move(items);
        v.numbers.clear();
        v.numbers.shrink_to_fit();
        v.number_places.clear();
        v.number_places.shrink_to_fit();
    }

    value_node value() {
        count_node(js.pos());
        return value_uncounted();
    }

    value_node value_uncounted() {
        using t = value_node::type;
        value_node v;
        const char c = js.peek();
        v.where = lines.to(js.pos());
        if (c == '{') {
            v.kind = t::table;
            js.object([&](const std::string& key, std::size_t) { v.fields.emplace_back(key, value()); });
        } else if (c == '[') {
            v.kind = t::array;
            js.array([&](std::size_t) { array_entry(v); });
            fit(v.numbers);
        } else if (c == '"') {
            v.kind = t::string;
            v.text = js.string_value();
        } else if (!word(v)) {
            if (c != '-' && !(c >= '0' && c <= '9'))
                js.fail_at(js.pos(), "expected a value (number, string, array, object, true, false or null), found " +
                                         js.found_char());
            v.kind = t::number;
            v.number = js.number_value(false);
        }
        return v;
    }

    // true, false, null, and NaN, Infinity and -Infinity as Python's json module writes
    // them (json.dump's default allow_nan=True): not standard JSON, but what students'
    // code produces. -Infinity is tried before a number's '-'.
    bool word(value_node& v) {
        using t = value_node::type;
        const double inf = std::numeric_limits<double>::infinity();
        const struct {
            const char* text;
            t kind;
            double number;
            bool flag;
        } words[] = {{"NaN", t::number, std::numeric_limits<double>::quiet_NaN(), false}, {"Infinity", t::number, inf, false},
                     {"-Infinity", t::number, -inf, false}, {"true", t::boolean, 0.0, true},
                     {"false", t::boolean, 0.0, false}, {"null", t::null, 0.0, false}};
        for (const auto& w : words) {
            if (!js.literal(w.text)) continue;
            v.kind = w.kind;
            v.number = w.number;
            v.flag = w.flag;
            return true;
        }
        return false;
    }
};

value_node read_tree(bool json, const std::string& text, const std::string& file) {
    return json ? read_json_tree(text, file) : read_toml_tree(text, file);
}

// True when text reads in that format as a document (a table at the top, not empty).
bool parses_as(bool json, const std::string& text, const std::string& file) {
    try {
        const value_node doc = read_tree(json, text, file);
        return doc.is_table() && !doc.fields.empty();
    } catch (const std::exception&) {
        return false;
    }
}

// Empty, not UTF-8, a NUL byte: refused before any parser sees the text.
void check_text(const std::string& text, const std::string& file) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw input_error(error::as_written{}, "empty", {file, 0, 0}, file + ": the file is empty");
    std::size_t bad = 0;
    if (!valid_utf8(text, &bad)) {
        const source_pos p = position_in(file, text, bad);
        throw input_error(error::as_written{}, "not-utf8", p,
                          p.str() + ": the file is not UTF-8 text (byte " + std::to_string(bad) +
                              " is not valid UTF-8); save it as UTF-8");
    }
    if (text.find('\0') != std::string::npos) {
        const source_pos p = position_in(file, text, text.find('\0'));
        throw input_error(error::as_written{}, "not-utf8", p, p.str() + ": the file contains a NUL byte; it is not a text file");
    }
}

}  // namespace

value_node read_json_tree(const std::string& text, const std::string& file) {
    const auto place = [&](std::size_t at) { return position_in(file, text, at); };
    json_scan js(
        text, [&](std::size_t at, const std::string& message) {
            throw input_error(error::as_written{}, "syntax", place(at), place(at).str() + ": JSON syntax: " + message);
        },
        [&](std::size_t at) { return place(at).str(); });
    json_builder b{js, text_position(file, text), std::max<std::size_t>(std::size_t{1} << 16, text.size() / 64), text.size()};
    value_node v = b.value();
    js.finish();
    return v;
}

value_node read_toml_tree(const std::string& text, const std::string& file) {
    const toml::table t = parse_toml(text, file, [&](const std::string& d, const source_pos& p) {
        return toml_first_definition(text, d, p);
    });
    value_node doc = from_toml(t, file);
    doc.where = {file, 1, 1};
    return doc;
}

bool looks_like_json(const std::string& path, const std::string& text) {
    const std::string ext = std::filesystem::path(path).extension().string();
    if (ext == ".json") return true;
    if (ext == ".toml") return false;
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string::npos && text[first] == '{';
}

value_node read_document(const std::string& raw, const std::string& file, bool json) {
    std::string text = decoded_text(raw, file);  // UTF-16/32 with a mark as UTF-8, lone CRs as LF
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a UTF-8 byte order mark
    check_text(text, file);
    try {
        return read_tree(json, text, file);
    } catch (const error& e) {
        // A file in the other format (a .json file holding TOML, or the reverse) says so.
        if (e.reason != "syntax" || !parses_as(!json, text, file)) throw;
        const char* other = json ? "TOML" : "JSON";
        throw input_error(error::as_written{}, "syntax", e.where,
                          file + ": this looks like " + other + ", not " + (json ? "JSON" : "TOML") +
                              ": the file is named ." + (json ? "json" : "toml") + " but holds " + other + "; rename it ." +
                              (json ? "toml" : "json") + " (as " + (json ? "JSON" : "TOML") + ": " + e.what() + ")");
    }
}

}  // namespace attn::io
