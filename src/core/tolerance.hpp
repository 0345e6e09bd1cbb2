// core/tolerance.hpp — NumPy's closeness rule (and rounding to k decimals, as people and NumPy round), so an rtol/atol (a teacher's, a test's) mean here
// exactly what they mean in numpy.isclose:   |a − e| ≤ atol + rtol·|e|
// (asymmetric: e is the expected value). NaN is never close to anything unless
// both are NaN and equal_nan is asked for (used only to recognise the NaN-row mistake);
// infinities are close only to the same infinity.
#pragma once

#include <cstddef>
#include <string>

#include "core/types.hpp"

namespace attn {

struct tolerance {
    double rtol = 1e-3;
    double atol = 1e-3;
    std::string str() const;  // "rtol 0.001, atol 0.001"
};

bool is_close(double actual, double expected, const tolerance& tol, bool equal_nan = false);

struct closeness {
    std::size_t total = 0;
    std::size_t close = 0;           // entries within tolerance
    std::size_t first_bad = 0;       // flat index of the first entry out of tolerance
    double worst_abs_error = 0.0;    // over finite pairs
    bool all() const { return close == total; }
};

// Same shape required (the caller checks shapes first and says so).
closeness compare(const matrix& actual, const matrix& expected, const tolerance& tol, bool equal_nan = false);
bool all_close(const matrix& actual, const matrix& expected, const tolerance& tol, bool equal_nan = false);

// x rounded to d decimals: half away from zero (as people round by hand), or half to
// even (as numpy.round and Python's round do) when half_even. Infinities and NaN stay.
matrix round_to(const matrix& x, int decimals, bool half_even = false);
// k (1 to max_decimals) when actual is expected rounded to k decimals either way
// (within 1e-9), else 0.
int rounded_decimals(const matrix& actual, const matrix& expected, int max_decimals);

// Every row of actual is close to some row of `rows` (same number of columns).
bool rows_among(const matrix& actual, const matrix& rows, const tolerance& tol, bool equal_nan = false);

}  // namespace attn
