// tests/core_submatrix_test.cpp — picking a matrix's entries by row and column index,
// and a row's largest entry, against values read off by hand.
#include <catch2/catch.hpp>

#include "core/submatrix.hpp"

using namespace attn;

TEST_CASE("a submatrix takes the chosen rows and columns in the order given", "[core][submatrix]") {
    const matrix m = {{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}};
    const auto picked = submatrix(m, {1, 0}, {2, 0});
    REQUIRE(picked.has_value());
    CHECK(bool(*picked == matrix{{6.0, 4.0}, {3.0, 1.0}}));
    const auto rows = submatrix(m, {1}, {});  // no columns listed: all of them
    REQUIRE(rows.has_value());
    CHECK(bool(*rows == matrix{{4.0, 5.0, 6.0}}));
    CHECK(bool(*submatrix(m, {}, {}) == m));
    CHECK_FALSE(submatrix(m, {2}, {}).has_value());     // no row 2
    CHECK_FALSE(submatrix(m, {}, {0, 3}).has_value());  // no column 3
}

TEST_CASE("a row's largest entry is found, the first of a tie or within the slack", "[core][submatrix]") {
    const matrix w = {{0.1, 0.5, 0.4}, {0.3, 0.2, 0.3}, {0.2, 0.39, 0.4}};
    CHECK(row_argmax(w, 0) == 1);
    CHECK(row_argmax(w, 1) == 0);        // a tie: the first
    CHECK(row_argmax(w, 2) == 2);
    CHECK(row_argmax(w, 2, 0.02) == 1);  // 0.39 is within 0.02 of 0.4
}

TEST_CASE("an index list picks its own indices, or every index when it is empty", "[core][submatrix]") {
    using indices = std::vector<std::size_t>;
    CHECK(all_or({2, 0}, 3) == indices{2, 0});  // kept as given, even in another order
    CHECK(all_or({}, 3) == indices{0, 1, 2});
    CHECK(all_or({}, 0).empty());
    // The same convention as submatrix: an empty list means every row.
    const matrix m = {{1.0, 2.0}, {3.0, 4.0}};
    CHECK(bool(*submatrix(m, all_or({}, 2), {}) == *submatrix(m, {}, {})));
}
