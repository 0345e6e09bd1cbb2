// tests/support/seed_printed.hpp — whether one of our numbers prints as a number the
// seed printed (golden/seed-*.toml), for the tests that check ours against the seed's tables.
#pragma once

#include <cmath>

namespace attn::testing {

// True when `ours` prints as `printed` with the given decimals (half a unit in the
// last place, plus a hair for the binary representation of the printed number).
inline bool prints_as(double ours, double printed, int decimals) {
    return std::fabs(ours - printed) <= 0.5 * std::pow(10.0, -decimals) + 1e-12;
}

}  // namespace attn::testing
