// io/toml_read.cpp — see toml_read.hpp. The readers; the unknown-key check and the
// "did you mean" words are in io/toml_keys.cpp.
#include "io/toml_read.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "io/toml_words.hpp"

namespace attn::io {

namespace {
// Words for a non-finite value, never the letters "nan" (the project's rule).
std::string non_finite_word(double v) {
    if (std::isnan(v)) return "not-a-number";
    return v > 0 ? "infinity" : "minus infinity";
}

std::string toml_number_text(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}
}  // namespace

source_pos toml_pos(const std::string& file, const toml::node* node) {
    source_pos p{file, 0, 0};
    if (node && node->source().begin.line > 0) {
        p.line = static_cast<int>(node->source().begin.line);
        p.column = static_cast<int>(node->source().begin.column);
    }
    return p;
}

source_pos toml_pos(const std::string& file, const toml::key& key) {
    source_pos p{file, 0, 0};
    if (key.source().begin.line > 0) {
        p.line = static_cast<int>(key.source().begin.line);
        p.column = static_cast<int>(key.source().begin.column);
    }
    return p;
}

double toml_number(const toml::node& n) {
    if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
    if (const auto* f = n.as_floating_point()) return f->get();
    return std::nan("");  // not a number node: callers check is_number() first; never finite
}

void toml_reader::fail(const toml::node* node, const std::string& message) const { fail_at(pos(node), message); }

void toml_reader::fail_at(const source_pos& where, const std::string& message) const {
    if (!problems) throw input_error(where, message);
    problems->push_back({where, message});
}

std::string toml_reader::type_name(const toml::node* node) { return toml_type_name(node); }

std::vector<const toml::table*> toml_reader::tables(const toml::node* node, const std::string& not_array,
                                                    const std::string& not_table) const {
    std::vector<const toml::table*> out;
    const toml::array* a = node->as_array();
    if (!a) {
        fail(node, not_array);
        return out;
    }
    for (const auto& e : *a) {
        if (const toml::table* t = e.as_table()) out.push_back(t);
        else fail(&e, not_table);
    }
    return out;
}

std::optional<std::string> toml_reader::string(const toml::table& t, const std::string& key, bool required) const {
    const toml::node* n = t.get(key);
    if (!n) {
        if (required) fail(&t, "missing key '" + key + "' (expected a string)");
        return std::nullopt;
    }
    if (auto v = n->value<std::string>(); v && n->is_string()) return *v;
    fail(n, "'" + key + "' must be a string, found " + type_name(n));
    return std::nullopt;
}

std::optional<double> toml_reader::number(const toml::table& t, const std::string& key, bool required) const {
    const toml::node* n = t.get(key);
    if (!n) {
        if (required) fail(&t, "missing key '" + key + "' (expected a number)");
        return std::nullopt;
    }
    if (n->is_number()) {
        const double v = toml_number(*n);
        if (std::isfinite(v)) return v;
        fail(n, "'" + key + "' must be a finite number, found " + non_finite_word(v));
        return std::nullopt;
    }
    fail(n, "'" + key + "' must be a number, found " + type_name(n));
    return std::nullopt;
}

std::optional<std::int64_t> toml_reader::integer(const toml::table& t, const std::string& key, bool required,
                                                 std::int64_t lo, std::int64_t hi) const {
    const toml::node* n = t.get(key);
    const std::string range = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (!n) {
        if (required) fail(&t, "missing key '" + key + "' (expected " + range + ")");
        return std::nullopt;
    }
    std::optional<std::int64_t> v;
    std::string found = type_name(n);
    if (n->is_integer()) {
        v = *n->value<std::int64_t>();
        found = std::to_string(*v);
    } else if (n->is_floating_point()) {
        const double d = toml_number(*n);
        // 3.0 is a whole number; 2.5, 1e300 and non-finite values are not.
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) v = static_cast<std::int64_t>(d);
        else found = std::isfinite(d) ? "the number " + toml_number_text(d) : non_finite_word(d);
    }
    if (v && *v >= lo && *v <= hi) return v;
    if (v) found = std::to_string(*v);
    fail(n, "'" + key + "' must be " + range + ", found " + found);
    return std::nullopt;
}

std::optional<std::string> toml_reader::choice(const toml::table& t, const std::string& key, bool required,
                                               const std::vector<std::string>& allowed) const {
    std::string list;
    for (std::size_t i = 0; i < allowed.size(); ++i)
        list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + ("\"" + allowed[i] + "\"");
    const toml::node* n = t.get(key);
    if (!n) {
        if (required) fail(&t, "missing key '" + key + "' (expected " + list + ")");
        return std::nullopt;
    }
    if (!n->is_string()) {
        fail(n, "'" + key + "' must be " + list + ", found " + type_name(n));
        return std::nullopt;
    }
    const std::string word = *n->value<std::string>();
    for (const auto& a : allowed)
        if (a == word) return word;
    fail(n, "'" + key + "' must be " + list + ", found \"" + word + "\"" + hint_suffix(word, allowed));
    return std::nullopt;
}

std::optional<bool> toml_reader::boolean(const toml::table& t, const std::string& key, bool required) const {
    const toml::node* n = t.get(key);
    if (!n) {
        if (required) fail(&t, "missing key '" + key + "' (expected true or false)");
        return std::nullopt;
    }
    if (n->is_boolean()) return *n->value<bool>();
    fail(n, "'" + key + "' must be true or false, found " + type_name(n));
    return std::nullopt;
}

std::optional<std::vector<std::size_t>> toml_reader::indices(const toml::table& t, const std::string& key, std::size_t n,
                                                            const std::vector<std::string>& names) const {
    const toml::node* node = t.get(key);
    if (!node) return std::vector<std::size_t>{};
    const toml::array* a = node->as_array();
    if (!a || a->empty()) {
        fail(node, "'" + key + "' must be a non-empty array of indices (0-based) or token names");
        return std::nullopt;
    }
    std::vector<std::size_t> out;
    for (const auto& e : *a) {
        if (e.is_integer()) {
            const auto i = *e.value<int64_t>();
            if (i < 0 || static_cast<std::size_t>(i) >= n) {
                fail(&e, "'" + key + "' index " + std::to_string(i) + " is outside 0.." + std::to_string(n - 1));
                return std::nullopt;
            }
            out.push_back(static_cast<std::size_t>(i));
        } else if (e.is_string()) {
            const std::string name = *e.value<std::string>();
            const auto end = names.begin() + static_cast<std::ptrdiff_t>(std::min(n, names.size()));
            const auto found = std::find(names.begin(), end, name);
            if (found == end) {
                std::string have;
                for (const auto& known : names) have += (have.empty() ? "" : ", ") + known;
                fail(&e, "'" + key + "' names token '" + name + "', which is not one of: " + have);
                return std::nullopt;
            }
            out.push_back(static_cast<std::size_t>(found - names.begin()));
        } else {
            fail(&e, "'" + key + "' entries must be indices or token names, found " + type_name(&e));
            return std::nullopt;
        }
    }
    return out;
}

std::optional<std::vector<std::string>> toml_reader::strings(const toml::table& t, const std::string& key,
                                                             bool required) const {
    const toml::node* n = t.get(key);
    if (!n) {
        if (required) fail(&t, "missing key '" + key + "' (expected an array of strings)");
        return std::nullopt;
    }
    const toml::array* a = n->as_array();
    if (!a) {
        fail(n, "'" + key + "' must be an array of strings, found " + type_name(n));
        return std::nullopt;
    }
    std::vector<std::string> out;
    for (const auto& e : *a) {
        if (!e.is_string()) {
            fail(&e, "'" + key + "' must hold strings only, found " + type_name(&e));
            return std::nullopt;
        }
        out.push_back(*e.value<std::string>());
    }
    return out;
}

std::optional<std::vector<double>> toml_reader::numbers(const toml::node* node, const std::string& what) const {
    const toml::array* a = node ? node->as_array() : nullptr;
    if (!a) {
        fail(node, what + " must be an array of numbers, found " + type_name(node));
        return std::nullopt;
    }
    std::vector<double> out;
    for (const auto& e : *a) {
        if (!e.is_number()) {
            fail(&e, what + " must hold numbers only, found " + type_name(&e));
            return std::nullopt;
        }
        const double v = toml_number(e);
        if (!std::isfinite(v)) {
            fail(&e, what + " must hold finite numbers, found " + non_finite_word(v));
            return std::nullopt;
        }
        out.push_back(v);
    }
    return out;
}

std::optional<matrix> toml_reader::matrix_value(const toml::node* node, const std::string& what) const {
    const toml::array* a = node ? node->as_array() : nullptr;
    if (!a || a->empty()) {
        fail(node, what + " must be a non-empty array of rows, found " + (a ? "an empty array" : type_name(node)));
        return std::nullopt;
    }
    if (!a->front().is_array()) {  // a flat array is one row
        auto row = numbers(node, what);
        if (!row) return std::nullopt;
        matrix m({1, row->size()});
        for (std::size_t j = 0; j < row->size(); ++j) m(0, j) = (*row)[j];
        return m;
    }
    std::vector<std::vector<double>> rows;
    for (std::size_t i = 0; i < a->size(); ++i) {
        const toml::node& r = *a->get(i);
        auto row = numbers(&r, what + " row " + std::to_string(i));
        if (!row) return std::nullopt;
        if (!rows.empty() && row->size() != rows.front().size()) {
            fail(&r, what + " row " + std::to_string(i) + " has " + std::to_string(row->size()) +
                         " entries, expected " + std::to_string(rows.front().size()) + " like row 0");
            return std::nullopt;
        }
        rows.push_back(*row);
    }
    matrix m({rows.size(), rows.front().size()});
    for (std::size_t i = 0; i < rows.size(); ++i)
        for (std::size_t j = 0; j < rows[i].size(); ++j) m(i, j) = rows[i][j];
    return m;
}

std::optional<bool_matrix> toml_reader::bool_matrix_value(const toml::node* node, const std::string& what) const {
    const toml::array* a = node ? node->as_array() : nullptr;
    if (!a || a->empty() || !a->front().is_array()) {
        fail(node, what + " must be an array of rows of true/false, found " + type_name(node));
        return std::nullopt;
    }
    const std::size_t n_rows = a->size();
    const std::size_t n_cols = a->front().as_array()->size();
    bool_matrix m({n_rows, n_cols});
    for (std::size_t i = 0; i < n_rows; ++i) {
        const toml::array* r = a->get(i)->as_array();
        if (!r || r->size() != n_cols) {
            fail(a->get(i), what + " row " + std::to_string(i) + " must have " + std::to_string(n_cols) + " entries");
            return std::nullopt;
        }
        for (std::size_t j = 0; j < n_cols; ++j) {
            const toml::node* e = r->get(j);
            if (e->is_boolean()) {
                m(i, j) = *e->value<bool>();
            } else if (e->is_integer() && (*e->value<int64_t>() == 0 || *e->value<int64_t>() == 1)) {
                m(i, j) = *e->value<int64_t>() == 1;
            } else {
                fail(e, what + " entries must be true/false (or 1/0), found " + type_name(e));
                return std::nullopt;
            }
        }
    }
    return m;
}

}  // namespace attn::io
