// tests/core_prng_test.cpp — attn's PRNG against published reference vectors and against
// numbers computed by an independent Python transcription (tests/data/core_prng_reference.txt,
// regenerated and checked by tests/python/test_core_prng.py), plus distribution checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/prng.hpp"
#include "core/internal_error.hpp"

using namespace attn;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// The data line starting with `key`, split into words after the key.
std::vector<std::string> reference_line(const std::string& key) {
    std::ifstream in(std::string(ATTN_SOURCE_DIR) + "/tests/data/core_prng_reference.txt");
    REQUIRE(in.good());
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key + " ", 0) == 0) {
            std::istringstream words(line.substr(key.size() + 1));
            std::vector<std::string> out;
            for (std::string w; words >> w;) out.push_back(w);
            return out;
        }
    }
    FAIL("no line " << key << " in core_prng_reference.txt");
    return {};
}

}  // namespace

TEST_CASE("xoshiro256** reproduces the reference outputs from state 1, 2, 3, 4", "[core]") {
    // Published with the reference C code (and used by rand_xoshiro's tests).
    auto g = prng::from_state({1, 2, 3, 4});
    const std::uint64_t expected[] = {11520ULL,
                                      0ULL,
                                      1509978240ULL,
                                      1215971899390074240ULL,
                                      1216172134540287360ULL,
                                      607988272756665600ULL,
                                      16172922978634559625ULL,
                                      8476171486693032832ULL,
                                      10595114339597558777ULL,
                                      2904607092377533576ULL};
    for (std::uint64_t e : expected) CHECK(g.next_u64() == e);
}

TEST_CASE("splitmix64 reproduces the published sequence for seed 1234567", "[core]") {
    std::uint64_t state = 1234567;
    const std::uint64_t expected[] = {6457827717110365317ULL, 3203168211198807973ULL, 9817491932198370423ULL,
                                      4593380528125082431ULL, 16408922859458223821ULL};
    for (std::uint64_t e : expected) CHECK(splitmix64_next(state) == e);
}

TEST_CASE("an all-zero xoshiro state is refused", "[core]") {
    CHECK_THROWS_AS(prng::from_state({0, 0, 0, 0}), attn::internal_error);
}

TEST_CASE("seeded generators give the pinned raw sequences", "[core]") {
    const auto seed = GENERATE(as<std::string>{}, "42", "0");
    auto g = prng(std::stoull(seed));
    for (const auto& w : reference_line("u64 seed=" + seed)) CHECK(g.next_u64() == std::stoull(w));
}

TEST_CASE("uniform draws are the pinned 53-bit fractions from 0 up to but not including 1", "[core]") {
    auto g = prng(2026);
    for (const auto& w : reference_line("uniform seed=2026")) {
        const double u = g.uniform();
        CHECK(u == std::strtod(w.c_str(), nullptr));  // exact: no libm involved
        CHECK(u >= 0.0);
        CHECK(u < 1.0);
    }
}

TEST_CASE("uniform_int gives the pinned draws and stays inside its bounds", "[core]") {
    auto g = prng(7);
    for (const auto& w : reference_line("uniform_int seed=7 lo=-3 hi=9")) CHECK(g.uniform_int(-3, 9) == std::stoll(w));
    auto h = prng(99);
    std::map<std::int64_t, int> counts;
    for (int i = 0; i < 13000; ++i) {
        const auto v = h.uniform_int(-3, 9);
        REQUIRE(v >= -3);
        REQUIRE(v <= 9);
        ++counts[v];
    }
    CHECK(counts.size() == 13);  // every value reached
    for (const auto& [value, n] : counts) {
        INFO("value " << value);
        CHECK(n > 850);  // expected 1000 each; 850 is > 4.7 standard deviations away
        CHECK(n < 1150);
    }
}

TEST_CASE("uniform_int handles single-value, negative and full ranges and refuses lo > hi", "[core]") {
    auto g = prng(1);
    CHECK(g.uniform_int(5, 5) == 5);
    CHECK(g.uniform_int(-8, -8) == -8);
    const auto lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    auto a = prng(3), b = prng(3);
    CHECK(a.uniform_int(lo, hi) == static_cast<std::int64_t>(b.next_u64()));  // no rejection needed
    CHECK_THROWS_AS(g.uniform_int(2, 1), attn::internal_error);
}

TEST_CASE("normal draws match the polar method's pinned values", "[core]") {
    auto g = prng(11);
    // Relative 1e-14 instead of exact: log() comes from libm (see prng.hpp).
    for (const auto& w : reference_line("normal seed=11")) CHECK_THAT(g.normal(), WithinRel(std::strtod(w.c_str(), nullptr), 1e-14));
}

TEST_CASE("normal draws have mean 0 and variance 1", "[core]") {
    auto g = prng(123);
    const int n = 20000;
    double sum = 0, sum_sq = 0;
    for (int i = 0; i < n; ++i) {
        const double x = g.normal(2.0, 3.0);
        sum += x;
        sum_sq += x * x;
    }
    const double mean = sum / n, var = sum_sq / n - mean * mean;
    CHECK_THAT(mean, WithinAbs(2.0, 0.1));  // standard error 3/√20000 ≈ 0.021
    CHECK_THAT(var, WithinAbs(9.0, 0.4));   // standard error ≈ 9·√(2/20000) ≈ 0.09
}

TEST_CASE("pick_halves gives small integers and halves, all equally likely", "[core]") {
    auto g = prng(5);
    for (const auto& w : reference_line("pick_halves seed=5 lo=-2 hi=2")) CHECK(g.pick_halves(-2, 2) == std::strtod(w.c_str(), nullptr));
    auto h = prng(8);
    std::map<double, int> counts;
    for (int i = 0; i < 9000; ++i) {
        const double v = h.pick_halves(-2, 2);
        REQUIRE(v * 2 == std::floor(v * 2));  // a multiple of 1/2
        ++counts[v];
    }
    CHECK(counts.size() == 9);  // −2, −1.5, …, 2
    for (const auto& [value, n] : counts) {
        INFO("value " << value);
        CHECK(n > 850);
        CHECK(n < 1150);
    }
    // Bounds that are not themselves halves are rounded inwards.
    for (int i = 0; i < 200; ++i) {
        const double v = h.pick_halves(0.2, 1.4);
        CHECK((v == 0.5 || v == 1.0));
    }
    CHECK_THROWS_AS(h.pick_halves(0.1, 0.4), attn::internal_error);
    CHECK_THROWS_AS(h.pick_halves(1, 0), attn::internal_error);
}

TEST_CASE("hash64 is FNV-1a 64 and matches its published and pinned values", "[core]") {
    CHECK(hash64("") == 0xcbf29ce484222325ULL);
    CHECK(hash64("a") == 0xaf63dc4c8601ec8cULL);
    CHECK(hash64("foobar") == 0x85944171f73967e8ULL);
    const auto attn_line = reference_line("hash64 'attn'");
    CHECK(hash64("attn") == std::stoull(attn_line.at(0)));
    const auto utf8_line = reference_line("hash64 '× d_model'");
    CHECK(hash64("× d_model") == std::stoull(utf8_line.at(0)));
}

TEST_CASE("combine_seed depends on order and separates parts", "[core]") {
    CHECK(combine_seed(1, 2) == std::stoull(reference_line("combine 1 2").at(0)));
    CHECK(combine_seed(2, 1) == std::stoull(reference_line("combine 2 1").at(0)));
    CHECK(combine_seed({"secret", "alice", "ex07"}) ==
          std::stoull(reference_line("combine_parts secret alice ex07").at(0)));
    CHECK(combine_seed({"ab", "c"}) != combine_seed({"a", "bc"}));
    CHECK(combine_seed({"s", "alice", "ex07"}) != combine_seed({"s", "bob", "ex07"}));
    // Neighbouring student numbers give unrelated streams.
    std::set<std::uint64_t> firsts;
    for (std::uint64_t student = 0; student < 100; ++student) firsts.insert(prng(combine_seed(77, student)).next_u64());
    CHECK(firsts.size() == 100);
}
