// core/tolerance.cpp — see tolerance.hpp.
#include "core/tolerance.hpp"

#include <cmath>

#include <algorithm>
#include <cstdio>

namespace attn {

std::string tolerance::str() const {
    auto g = [](double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", x);
        return std::string(buf);
    };
    return "rtol " + g(rtol) + ", atol " + g(atol);
}

bool is_close(double actual, double expected, const tolerance& tol, bool equal_nan) {
    if (std::isnan(actual) || std::isnan(expected)) return equal_nan && std::isnan(actual) && std::isnan(expected);
    if (std::isinf(actual) || std::isinf(expected)) return actual == expected;
    return std::fabs(actual - expected) <= tol.atol + tol.rtol * std::fabs(expected);
}

closeness compare(const matrix& actual, const matrix& expected, const tolerance& tol, bool equal_nan) {
    closeness c;
    c.total = expected.size();
    bool seen_bad = false;
    for (std::size_t k = 0; k < expected.size() && k < actual.size(); ++k) {
        const double a = actual.flat(k), e = expected.flat(k);
        if (is_close(a, e, tol, equal_nan)) {
            ++c.close;
        } else if (!seen_bad) {
            seen_bad = true;
            c.first_bad = k;
        }
        if (std::isfinite(a) && std::isfinite(e)) c.worst_abs_error = std::max(c.worst_abs_error, std::fabs(a - e));
    }
    return c;
}

bool all_close(const matrix& actual, const matrix& expected, const tolerance& tol, bool equal_nan) {
    if (actual.shape() != expected.shape()) return false;
    return compare(actual, expected, tol, equal_nan).all();
}

}  // namespace attn
