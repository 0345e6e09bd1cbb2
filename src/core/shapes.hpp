// core/shapes.hpp — a symbolic shape engine: the "B × n_tgt × d_q" of seed 004 and
// the tables of seed 001, as values that can be parsed, printed, compared and evaluated.
//
//   dim              coefficient × Π symbolᵖ with a rational coefficient and integer
//                    exponents, so d_model/H · H == d_model, 4·d, d/2, n^2 are all dims
//   symbolic_shape   a list of dims, one per axis (rank 0 = a scalar)
//   parse_shape      tolerant of student spelling: "B × n_tgt × d_q", "B x n_tgt x d_q",
//                    "(B, n_tgt, d_q)", "[B, n_tgt, d_q]", "B n_tgt d_q", "B*n_tgt",
//                    "d/H", "4d", "n_{tgt}", "5x4", "R^{n \times d}", "ℝ^(n, d)";
//                    symbol case is preserved
//   to_string        canonical: "B × n_tgt × d_q", dims as "4·d", "d_model/H", "n^2"
//   evaluate         plug numbers in; names an unbound symbol; refuses d/H = 10/3
//   compare_shapes   equal / permuted (e.g. last two swapped) / rank differs (which
//                    axis is missing or extra) / a dim differs (which axis, both dims)
// Parse errors throw shape_parse_error with the 1-based column (in characters, so
// "×" counts as one) of the offending character. No I/O.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace attn {

using symbol_values = std::map<std::string, std::int64_t>;

struct shape_parse_error : error {
    shape_parse_error(const std::string& message, std::size_t column_, std::string found_)
        : error(message), column(column_), found(std::move(found_)) {}
    std::size_t column;  // 1-based, in characters of the parsed text
    std::string found;   // the offending token, or "end of text"
};

// A symbol had no value, or a dim did not come out as a whole number ≥ 0.
struct shape_eval_error : error {
    shape_eval_error(const std::string& message, std::string symbol_ = {})
        : error(message), symbol(std::move(symbol_)) {}
    std::string symbol;  // the unbound symbol, empty for other errors
};

class dim {
public:
    dim() = default;  // the constant 1
    static dim constant(std::int64_t value);  // value ≥ 0
    static dim symbol(const std::string& name);

    dim operator*(const dim& other) const;
    dim operator/(const dim& other) const;  // throws shape_eval_error on division by 0
    dim pow(int exponent) const;
    bool operator==(const dim& other) const;  // equality up to algebra
    bool operator!=(const dim& other) const { return !(*this == other); }

    bool is_constant() const { return factors_.empty(); }
    std::int64_t numerator() const { return num_; }
    std::int64_t denominator() const { return den_; }
    // Symbols with their exponents, in order of first appearance (exponent ≠ 0).
    const std::vector<std::pair<std::string, int>>& factors() const { return factors_; }

    // Canonical text: "B", "4·d", "d_model/H", "d/(2·H)", "n^2", "7".
    std::string to_string() const;
    // The number with every symbol bound; throws shape_eval_error.
    std::int64_t evaluate(const symbol_values& values) const;
    // Replaces symbols by dims (e.g. d_head → d_model/H); other symbols stay.
    dim substitute(const std::map<std::string, dim>& rules) const;

private:
    std::int64_t num_ = 1, den_ = 1;  // reduced, den_ > 0
    std::vector<std::pair<std::string, int>> factors_;
};

struct symbolic_shape {
    std::vector<dim> dims;  // one per axis
    std::size_t rank() const { return dims.size(); }
    bool operator==(const symbolic_shape& o) const { return dims == o.dims; }
    bool operator!=(const symbolic_shape& o) const { return !(*this == o); }
};

dim parse_dim(std::string_view text);
symbolic_shape parse_shape(std::string_view text);
// Builds a shape from dims given as text, e.g. make_shape({"B", "n_tgt", "d_model/H"}).
symbolic_shape make_shape(std::initializer_list<std::string_view> dims);

std::string to_string(const symbolic_shape& shape);               // "B × n_tgt × d_q"; rank 0: "()"
std::string to_string(const std::vector<std::int64_t>& numbers);  // "2 × 3 × 4"
std::vector<std::int64_t> evaluate(const symbolic_shape& shape, const symbol_values& values);
symbolic_shape substitute(const symbolic_shape& shape, const std::map<std::string, dim>& rules);

// The symbols the seeds use, with what they mean (for shape tables and hints).
struct symbol_info {
    std::string name;
    std::string meaning;
};
const std::vector<symbol_info>& standard_symbols();
bool is_standard_symbol(std::string_view name);

enum class shape_verdict { equal, permuted, rank_differs, dim_differs };

struct shape_comparison {
    shape_verdict verdict = shape_verdict::equal;
    std::string expected, actual;  // both shapes as canonical text
    std::size_t expected_rank = 0, actual_rank = 0;
    // permuted: actual axis i holds expected axis permutation[i].
    std::vector<std::size_t> permutation;
    bool last_two_swapped = false;  // permuted, and exactly the last two axes trade places
    // rank_differs: when removing one axis from the longer shape makes them equal, that
    // axis (0-based, in the longer shape); missing_axis = the actual shape lacks it.
    std::optional<std::size_t> odd_axis;
    bool missing_axis = false;
    // dim_differs: the first differing axis (0-based), both dims, and how many axes differ.
    std::size_t position = 0;
    std::string expected_dim, actual_dim;
    std::size_t differing_axes = 0;

    // One sentence for feedback, e.g. "axis 3 of 3 differs: expected d_q, found d_v".
    std::string explain() const;
};

shape_comparison compare_shapes(const symbolic_shape& expected, const symbolic_shape& actual);
shape_comparison compare_shapes(const std::vector<std::int64_t>& expected,
                                const std::vector<std::int64_t>& actual);

}  // namespace attn
