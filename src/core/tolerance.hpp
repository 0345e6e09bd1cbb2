// core/tolerance.hpp — NumPy's closeness rule, so an rtol/atol (a teacher's, a test's) mean here
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

}  // namespace attn
