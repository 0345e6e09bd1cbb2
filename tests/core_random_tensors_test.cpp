// tests/core_random_tensors_test.cpp — PRNG-filled matrices keep the row-major draw order,
// and the measured spread of q·k grows like √d (seed 000 §3.4) while q·k/√d stays near 1.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/random_tensors.hpp"
#include "core/internal_error.hpp"

using namespace attn;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

TEST_CASE("random matrices draw their entries in row-major order", "[core]") {
    prng a(31), b(31);
    const matrix m = halves_matrix(a, 2, 3, -1, 1);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j) CHECK(m(i, j) == b.pick_halves(-1, 1));
    prng c(4), e(4);
    const matrix n = normal_matrix(c, 3, 2, 1.0, 2.0);
    CHECK(n(1, 0) == [&] {
        e.normal(1.0, 2.0);
        e.normal(1.0, 2.0);
        return e.normal(1.0, 2.0);
    }());
    prng f(6);
    const matrix u = uniform_matrix(f, 4, 4, -3, 3);
    for (double v : u) {
        CHECK(v >= -3.0);
        CHECK(v < 3.0);
    }
}

TEST_CASE("dot products of random vectors spread like the square root of d", "[core]") {
    const auto d = GENERATE(as<std::size_t>{}, 4, 64, 512);
    prng g(2);
    const auto s = measure_dot_products(g, d, 4000);
    INFO("d = " << d << " stddev " << s.stddev);
    // Var(q·k) = d for independent N(0,1) entries; 4000 samples → about 2.2 % error on the stddev.
    CHECK_THAT(s.stddev, WithinRel(std::sqrt(static_cast<double>(d)), 0.08));
    CHECK_THAT(s.scaled_stddev, WithinAbs(1.0, 0.08));
    CHECK(std::fabs(s.mean) < 4 * s.stddev / std::sqrt(4000.0));
    CHECK_THROWS_AS(measure_dot_products(g, 0, 10), attn::internal_error);
}
