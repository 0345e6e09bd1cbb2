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

TEST_CASE("rounding to k decimals goes half away from zero by hand and half to even as numpy.round", "[core][tolerance]") {
    // numpy.round([0.125, -0.125, 2.5, 0.35, 1.0], 2) = [0.12, -0.12, 2.5, 0.35, 1.0]; by hand 0.13, -0.13
    matrix x = {{0.125, -0.125, 2.5, 0.35, 1.0}};
    const matrix by_hand = round_to(x, 2), numpy = round_to(x, 2, /*half_even=*/true);
    CHECK(by_hand(0, 0) == 0.13);
    CHECK(by_hand(0, 1) == -0.13);
    CHECK(numpy(0, 0) == 0.12);
    CHECK(numpy(0, 1) == -0.12);
    CHECK(numpy(0, 3) == 0.35);
    // numpy.round(2.5) = 2.0, round(2.5) by hand = 3.0; and round(-1.25, 1): -1.2 (even) or -1.3
    CHECK(round_to(matrix{{2.5}}, 0, true)(0, 0) == 2.0);
    CHECK(round_to(matrix{{2.5}}, 0)(0, 0) == 3.0);
    CHECK(round_to(matrix{{-1.25}}, 1, true)(0, 0) == -1.2);
    CHECK(round_to(matrix{{-1.25}}, 1)(0, 0) == -1.3);
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(round_to(matrix{{-inf}}, 1)(0, 0) == -inf);
}

TEST_CASE("the decimals an answer was rounded to are recognised, and rows are found among others", "[core][tolerance]") {
    const matrix expected = {{0.12345, -1.98765}};
    CHECK(rounded_decimals(matrix{{0.1, -2.0}}, expected, 3) == 1);
    CHECK(rounded_decimals(matrix{{0.12, -1.99}}, expected, 3) == 2);
    CHECK(rounded_decimals(matrix{{0.123, -1.988}}, expected, 3) == 3);
    CHECK(rounded_decimals(matrix{{0.1235, -1.9877}}, expected, 3) == 0);  // 4 decimals: past the range asked
    CHECK(rounded_decimals(matrix{{0.12345, -1.98765}}, expected, 3) == 0);  // not rounded at all
    CHECK(rounded_decimals(matrix{{0.12}}, expected, 3) == 0);               // another shape
    // 0.125 rounds to 0.13 by hand and 0.12 as numpy.round: both are recognised
    CHECK(rounded_decimals(matrix{{0.13}}, matrix{{0.125}}, 3) == 2);
    CHECK(rounded_decimals(matrix{{0.12}}, matrix{{0.125}}, 3) == 2);

    const matrix rows = {{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}};
    const tolerance t{0.0, 0.01};
    CHECK(rows_among(matrix{{5.0, 6.005}, {1.0, 2.0}}, rows, t));
    CHECK_FALSE(rows_among(matrix{{1.0, 4.0}}, rows, t));  // each entry is somewhere, the row is not
    CHECK_FALSE(rows_among(matrix{{1.0}}, rows, t));       // another width
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK(rows_among(matrix{{nan, 1.0}}, matrix{{nan, 1.0}}, t, /*equal_nan=*/true));
    CHECK_FALSE(rows_among(matrix{{nan, 1.0}}, matrix{{nan, 1.0}}, t));
}
