// tests/support/lcg.hpp — the tests' small, fixed random numbers (Knuth's MMIX LCG):
// the same stream on every compiler and machine, so a test's inputs never change, and
// the bit-for-bit comparison of the fast kernels' outputs that goes with them.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/fast_attention.hpp"

namespace attn::testing {

// A linear congruential generator; `s` is the seed and the state.
struct lcg {
    std::uint64_t s;
    double next() {  // uniform in [-2, 2)
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return double(s >> 11) * 0x1.0p-53 * 4.0 - 2.0;
    }
};

// The same shape and the same bits (an empty matrix has no data pointer: memcmp must not
// see it, or UBSan reports null passed as a nonnull argument).
template <class T>
bool same_bits(const fast_matrix<T>& a, const fast_matrix<T>& b) {
    return a.shape() == b.shape() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace attn::testing
