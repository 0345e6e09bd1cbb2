// tests/core_tolerance_test.cpp — NumPy's closeness rule (core/tolerance.hpp), checked
// against the cases of numpy.isclose's documentation and its handling of nan and ±inf.
#include <catch2/catch.hpp>

#include <limits>
#include <tuple>

#include "core/tolerance.hpp"

using namespace attn;

TEST_CASE("closeness follows numpy.isclose: |a - e| <= atol + rtol * |e|", "[core][tolerance]") {
    // The cases of numpy.isclose's documentation, with its defaults rtol 1e-5, atol 1e-8.
    const tolerance np_default{1e-5, 1e-8};
    using row = std::tuple<double, double, bool>;
    auto [a, e, close] = GENERATE(table<double, double, bool>({
        row{1e10, 1.00001e10, true},
        row{1e-7, 1e-8, false},
        row{1e-8, 1e-9, true},
        row{1e-100, 0.0, true},
        row{1e-7, 0.0, false},
        row{0.0, 0.0, true},
    }));
    CHECK(is_close(a, e, np_default) == close);
}

TEST_CASE("the tolerance is asymmetric, and nan and infinities are handled as numpy does", "[core][tolerance]") {
    const tolerance t{0.1, 0.0};
    CHECK(is_close(1.0, 1.1, t));       // 0.1 <= 0.1 * 1.1
    CHECK_FALSE(is_close(1.1, 1.0, t)); // 0.1 > 0.1 * 1.0 (up to rounding: 0.10000000000000009)
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    CHECK_FALSE(is_close(nan, nan, t));
    CHECK(is_close(nan, nan, t, /*equal_nan=*/true));
    CHECK(is_close(-inf, -inf, t));
    CHECK_FALSE(is_close(inf, -inf, t));
    CHECK_FALSE(is_close(1e300, inf, t));
    CHECK(tolerance{0.001, 0.0005}.str() == "rtol 0.001, atol 0.0005");
}
