// trace/number_format.hpp — how every number in attn is printed.
// Fixed decimals per table (raw scores 2, scaled 3, weights and outputs 4, as the
// seeds print them), no "-0.0000", infinities as "-inf"/"inf", and never "nan".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace attn::trace {

// Fixed decimals; values that round to zero print without a sign.
std::string fixed(double value, int decimals);

// Whole numbers in groups of three, as a reader compares counts by eye: 124439808 →
// "124,439,808".
std::string grouped(std::uint64_t n);

// Fixed decimals with an explicit sign: "+0.0147", "-0.0106", "0.0000".
std::string signed_fixed(double value, int decimals);

// Rounded to `decimals` (half away from zero), never -0: no binary noise such as
// 0.30000000000000004 in a JSON score.
double rounded(double value, int decimals);

// rounded(), then printed with its trailing zeros and point dropped: 2 → "2", 1.5 → "1.5",
// 1/3 → "0.33" at 2 (the grader's points).
std::string trimmed_fixed(double value, int decimals);

// Shortest form up to max_decimals, at least one decimal: 1.2, 0.0, 0.5, 0.125.
// Used for input matrices, where the teacher's numbers should read as written.
std::string compact(double value, int max_decimals = 4);

// The fewest decimals (1 to 4) that print every entry of m exactly: halves print as
// 0.5, 1.0 (a teacher's or a variant's input numbers read as written).
int exact_decimals(const matrix& m);

// "[1.2, 0.0, 1.1, 0.0]" with compact() entries, or fixed() when decimals >= 0.
std::string bracketed(const std::vector<double>& values, int decimals = -1);
std::string bracketed_row(const matrix& m, std::size_t row, int decimals = -1);
// "[[1.0, 0.5], [0.0, 2.0]]": every row bracketed, as a TOML or Python matrix is written.
std::string bracketed_matrix(const matrix& m, int decimals = -1);

// One product of a dot product as a person writes it: "1.0×0.5", "1.0×(-0.5)".
std::string product_term(double a, double b);

// Terms joined into a sum, a leading minus becoming the operator:
// {"1.0×1.0", "-0.5×(-0.5)", "…"} → "1.0×1.0 - 0.5×(-0.5) + …".
std::string sum_of_terms(const std::vector<std::string>& terms);

}  // namespace attn::trace
