// io/value_matrix.cpp — see value_matrix.hpp.
#include "io/value_matrix.hpp"

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace attn::io {

namespace {

// "nan", "inf", "-inf", "infinity" in any case, and the printed forms "−inf" (U+2212
// MINUS SIGN), "∞", "-∞", "−∞".
std::optional<double> special_number(const std::string& s) {
    std::string t;
    for (char c : s)
        if (c != ' ') t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string minus = "\xE2\x88\x92", infinity = "\xE2\x88\x9E";  // U+2212, U+221E
    if (t.rfind(minus, 0) == 0) t.replace(0, minus.size(), "-");
    if (const auto at = t.find(infinity); at != std::string::npos && at + infinity.size() == t.size()) t.replace(at, infinity.size(), "inf");
    if (t == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (t == "inf" || t == "+inf" || t == "infinity") return std::numeric_limits<double>::infinity();
    if (t == "-inf" || t == "-infinity") return -std::numeric_limits<double>::infinity();
    return std::nullopt;
}

// An entry of a matrix: a number, a special word, or null, which attn's own JSON exports
// write for a blocked cell (−∞).
std::optional<double> entry(const value_node& v) {
    if (v.is_number()) return v.number;
    if (v.kind == value_node::type::null) return -std::numeric_limits<double>::infinity();
    if (v.is_string()) return special_number(v.text);
    return std::nullopt;
}

}  // namespace

// Row `row`'s entries into out [cols] (out null: only counted); an error names the place.
bool matrix_row(const value_node& row, std::size_t i, double* out, std::string& error) {
    if (!row.is_array()) {
        error = row.where.str() + ": row " + std::to_string(i) + " must be an array of numbers, found " + type_name(row);
        return false;
    }
    std::size_t k = 0;
    for (const auto& e : row.items) {
        auto x = entry(e);
        if (!x) {
            error = e.where.str() + ": expected a number, found " + type_name(e);
            return false;
        }
        if (out) out[k] = *x;
        ++k;
    }
    if (out)
        for (double x : row.numbers) out[k++] = x;
    return true;
}

matrix_read read_matrix(const value_node& v) {
    matrix_read r;
    if (auto x = entry(v)) {
        r.m = matrix({1, 1});
        (*r.m)(0, 0) = *x;
        return r;
    }
    if (!v.is_array()) {
        r.error = v.where.str() + ": expected a number or an array of rows of numbers, found " + type_name(v) +
                  (v.is_string() ? " \"" + v.text.substr(0, 40) + "\"" : "");
        return r;
    }
    if (v.length() == 0) {
        r.error = v.where.str() + ": expected numbers, found an empty array";
        return r;
    }
    // [[1, 2], [3, 4]] is rows; [1, 2] is one row (packed when long: every entry a number).
    const bool rows = v.numbers.empty() && v.items.front().is_array();
    const auto given = rows ? v.entries() : std::vector<const value_node*>{&v};
    const std::size_t cols = given.front()->is_array() ? given.front()->length() : 0;
    for (std::size_t i = 0; i < given.size(); ++i) {  // checked first: the matrix is made once, at its size
        const value_node& row = *given[i];
        if (!matrix_row(row, i, nullptr, r.error)) return r;
        if (row.length() != cols || cols == 0) {
            r.error = row.where.str() + ": row " + std::to_string(i) + " has " + std::to_string(row.length()) +
                      " entries but row 0 has " + std::to_string(cols) + " (every row needs the same number)";
            return r;
        }
    }
    r.m = matrix({given.size(), cols});
    for (std::size_t i = 0; i < given.size(); ++i) matrix_row(*given[i], i, &(*r.m)(i, 0), r.error);
    return r;
}

matrix conform(const matrix& m, const matrix& expected) {
    const bool m_vec = m.shape(0) == 1 || m.shape(1) == 1;
    const bool e_vec = expected.shape(0) == 1 || expected.shape(1) == 1;
    if (m.shape() != expected.shape() && m_vec && e_vec && m.size() == expected.size()) {
        matrix r(expected.shape());
        for (std::size_t k = 0; k < m.size(); ++k) r.flat(k) = m.flat(k);
        return r;
    }
    return m;
}

}  // namespace attn::io
