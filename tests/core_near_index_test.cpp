// tests/core_near_index_test.cpp — core/near_index.hpp: vectors found again within a
// tolerance (noise below it, either side of a bucket edge), never when farther, and
// the keyed entries chosen where vectors differ. The references are worked by hand.
#include <catch2/catch.hpp>

#include <vector>

#include "core/near_index.hpp"

using namespace attn;

namespace {

matrix row(std::initializer_list<double> v) {
    matrix m = xt::zeros<double>({std::size_t{1}, v.size()});
    std::size_t j = 0;
    for (double x : v) m(0, j++) = x;
    return m;
}

// Eight vectors that differ in entries 1 and 2 (by 0.5 and 0.25 per vector) and share 0 and 3.
std::vector<matrix> sample() {
    std::vector<matrix> out;
    for (int i = 0; i < 8; ++i) out.push_back(row({1.0, 0.5 * i, -0.25 * i, 7.0}));
    return out;
}

const tolerance tol{0.0, 0.01};  // |a - e| <= 0.01

}  // namespace

TEST_CASE("near keys are the entries that vary, in buckets twice the tolerance wide", "[core][near_index]") {
    const near_key k = near_key::choose(sample(), tol, 3, 42);
    // Entry 1 spans 8 buckets of width 2 * (0.01 + 0 * 7) = 0.02, entry 2 too; 0 and 3 one each.
    CHECK(k.at == std::vector<std::size_t>{1, 2});
    CHECK(k.width == Approx(0.02));
    CHECK(k.salt == 42);
    const near_key same = near_key::choose(std::vector<matrix>(8, row({1.0, 2.0})), tol, 3, 42);
    CHECK(same.at.empty());  // nothing varies: matching proves nothing
    CHECK(near_key::choose(sample(), tol, 1, 42).at.size() == 1);
}

TEST_CASE("noise below the tolerance reaches the stored key, across a bucket edge too", "[core][near_index]") {
    const near_key k = near_key::choose(sample(), tol, 3, 7);
    const matrix stored = row({1.0, 1.5, -0.75, 7.0});
    // 1.5 / 0.02 = 75 exactly: 1.5 - 0.009 lies in bucket 74, the next one down.
    for (double noise : {0.009, -0.009, 0.0}) {
        const matrix noisy = row({1.0, 1.5 + noise, -0.75 - noise, 7.0});
        const auto keys = k.keys_near(noisy);
        CHECK(std::find(keys.begin(), keys.end(), k.key(stored)) != keys.end());
        CHECK(keys.size() <= 9);  // at most 3 buckets per keyed entry
    }
    const auto far = k.keys_near(row({1.0, 1.6, -0.75, 7.0}));
    CHECK(std::find(far.begin(), far.end(), k.key(stored)) == far.end());
    CHECK(k.key(stored) != near_key::choose(sample(), tol, 3, 8).key(stored));  // the salt separates families
}

TEST_CASE("near_ids visits the ids under a near key, at most the limit", "[core][near_index]") {
    const near_key k = near_key::choose(sample(), tol, 3, 1);
    near_ids ids;
    const auto s = sample();
    for (std::uint32_t i = 0; i < s.size(); ++i) ids.add(k.key(s[i]), i);
    for (std::uint32_t i = 0; i < 5; ++i) ids.add(k.key(s[3]), 100 + i);  // five more vectors equal to s[3]
    ids.seal();
    std::vector<std::uint32_t> seen;
    ids.visit(k, row({1.0, 1.505, -0.755, 7.0}), 100, [&](std::uint32_t id) { seen.push_back(id); });
    CHECK(seen == std::vector<std::uint32_t>{3, 100, 101, 102, 103, 104});
    seen.clear();
    ids.visit(k, s[3], 2, [&](std::uint32_t id) { seen.push_back(id); });
    CHECK(seen.size() == 2);
    seen.clear();
    ids.visit(k, row({1.0, 9.0, 9.0, 7.0}), 100, [&](std::uint32_t id) { seen.push_back(id); });
    CHECK(seen.empty());
}

TEST_CASE("near_values confirms every entry, in its family, skipping the asker", "[core][near_index]") {
    const near_key k = near_key::choose(sample(), tol, 3, 5);
    near_values kept;
    kept.keep(k, 10, 0, row({1.0, 1.5, -0.75, 7.0}));
    kept.keep(k, 11, 0, row({1.0, 1.5, -0.75, 7.5}));  // same key, entry 3 too far
    kept.keep(k, 12, 1, row({1.0, 1.5, -0.75, 7.0}));  // another family
    const matrix asked = row({1.005, 1.495, -0.745, 7.0});
    CHECK(kept.close_to(k, asked, 0, 99, 32) == std::set<std::uint32_t>{10});
    CHECK(kept.close_to(k, asked, 1, 99, 32) == std::set<std::uint32_t>{12});
    CHECK(kept.close_to(k, asked, 0, 10, 32).empty());
    CHECK(kept.close_to(k, asked, 0, 99, 1).empty());  // the latest kept (12) is the one looked at
    CHECK(kept.close_to(k, row({1.0, 1.52, -0.75, 7.0}), 0, 99, 32).empty());
}
