// tests/core_item_stats_test.cpp — core/item_stats.hpp against numbers worked by hand:
// four students, two one-point items, rows (1,1) (1,1) (0,0) (1,0). Item 0: facility 3/4;
// its rest is item 1, r = cov / (sd·sd) = 0.125 / (√0.1875 · 0.5) = 1/√3. α = 2·(1 −
// (0.1875 + 0.25) / 0.6875) = 8/11. (tests/python/test_grade_item_analysis.py checks the
// class run against NumPy.)
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/item_stats.hpp"

using namespace attn;

TEST_CASE("item statistics: facility, point-biserial with the rest, Cronbach's alpha", "[core][item_stats]") {
    item_stats s({1.0, 1.0});
    CHECK_FALSE(s.facility(0));  // no students yet: undefined, never NaN
    const std::vector<std::vector<double>> rows{{1, 1}, {1, 1}, {0, 0}, {1, 0}};  // [students][items]
    for (const auto& row : rows) s.add(row);
    CHECK(s.students() == 4);
    CHECK(*s.facility(0) == Approx(0.75));
    CHECK(*s.facility(1) == Approx(0.5));
    CHECK(*s.discrimination(0) == Approx(1.0 / std::sqrt(3.0)));
    CHECK(*s.discrimination(1) == Approx(1.0 / std::sqrt(3.0)));
    CHECK(*s.alpha() == Approx(8.0 / 11.0));

    item_stats same({2.0, 2.0});  // everyone alike: no spread, no discrimination, no alpha
    for (int i = 0; i < 3; ++i) same.add({2.0, 1.0});
    CHECK_FALSE(same.discrimination(0));
    CHECK_FALSE(same.alpha());
    CHECK(*same.facility(1) == Approx(0.5));

    CHECK(histogram_bin(0.0, 10.0, 10) == 0);
    CHECK(histogram_bin(0.99, 10.0, 10) == 0);
    CHECK(histogram_bin(1.0, 10.0, 10) == 1);
    CHECK(histogram_bin(10.0, 10.0, 10) == 9);  // the maximum is in the last bin
}
