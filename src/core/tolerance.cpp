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

matrix round_to(const matrix& x, int decimals, bool half_even) {
    const double f = std::pow(10.0, decimals);
    matrix r = x;
    for (auto& e : r) {
        if (!std::isfinite(e)) continue;
        const double y = e * f;
        double n = std::round(y);
        if (half_even && std::fabs(y - std::trunc(y)) == 0.5) n = 2.0 * std::round(y / 2.0);
        e = n / f;
    }
    return r;
}

int rounded_decimals(const matrix& actual, const matrix& expected, int max_decimals) {
    if (actual.shape() != expected.shape()) return 0;
    const tolerance exact{0.0, 1e-9};
    for (int k = 1; k <= max_decimals; ++k)
        if (all_close(actual, round_to(expected, k), exact, true) || all_close(actual, round_to(expected, k, true), exact, true))
            return k;
    return 0;
}

bool rows_among(const matrix& actual, const matrix& rows, const tolerance& tol, bool equal_nan) {
    if (rows.shape(1) != actual.shape(1)) return false;
    for (std::size_t i = 0; i < actual.shape(0); ++i) {
        bool found = false;
        for (std::size_t j = 0; j < rows.shape(0) && !found; ++j) {
            found = true;
            for (std::size_t c = 0; c < actual.shape(1) && found; ++c)
                found = is_close(actual(i, c), rows(j, c), tol, equal_nan);
        }
        if (!found) return false;
    }
    return true;
}

}  // namespace attn
