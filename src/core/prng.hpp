// core/prng.hpp — attn's own deterministic random numbers and distributions.
//
// Why our own: std::mt19937 is portable but std::uniform_int_distribution,
// std::normal_distribution & co. are not — libstdc++, libc++ and MSVC give different
// numbers for the same seed. Lessons (lesson 02's random vectors) and per-student
// exercise variants must be identical on every compiler, so every draw here is
// defined bit for bit:
//   seeding   SplitMix64 (Steele, Lea, Flood 2014) expands a 64-bit seed into state
//   engine    xoshiro256** 1.0 (Blackman & Vigna 2018)
//   uniform   top 53 bits of a draw × 2⁻⁵³, in [0, 1), exact on every platform
//   integers  uniform_int(lo, hi) inclusive, unbiased by rejection (no modulo bias)
//   normal    Marsaglia's polar method: only +, −, ×, ÷, sqrt and log. sqrt is
//             correctly rounded by IEEE 754; log comes from libm, which glibc rounds
//             to < 1 ulp but does not promise to round identically everywhere, so a
//             normal draw may differ in its last bit on an exotic libm. Consumers that
//             print to 4 decimals never see it; consumers that need exact equality
//             across libms must use uniform / uniform_int / pick_halves.
//   hashing   FNV-1a 64 of a string, and combine_seed() to derive seeds from
//             (course secret, student id, exercise id) with no concatenation collisions.
// No I/O, no global state: every generator is a value the caller owns.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace attn {

// One SplitMix64 step: advances state by the golden-ratio increment and returns the
// mixed value. Also the 64-bit finaliser used by combine_seed().
std::uint64_t splitmix64_next(std::uint64_t& state);

// FNV-1a 64-bit hash of the bytes of text (offset 0xcbf29ce484222325, prime 0x100000001b3).
std::uint64_t hash64(std::string_view text);

// A seed from a seed and one more value; order matters (combine(a, b) ≠ combine(b, a)).
std::uint64_t combine_seed(std::uint64_t seed, std::uint64_t value);
// A seed from several strings, each hashed on its own, so ("ab", "c") ≠ ("a", "bc").
std::uint64_t combine_seed(std::initializer_list<std::string_view> parts);

class prng {
public:
    using state_type = std::array<std::uint64_t, 4>;

    // State = four SplitMix64 outputs from seed (the seeding the xoshiro authors recommend).
    explicit prng(std::uint64_t seed);
    // Exactly this state (for reference vectors). An all-zero state is refused.
    static prng from_state(const state_type& state);

    const state_type& state() const { return s_; }

    std::uint64_t next_u64();  // raw xoshiro256** output
    double uniform();          // [0, 1), multiples of 2⁻⁵³
    double uniform(double lo, double hi);  // [lo, hi) as lo + (hi − lo)·uniform()
    // Every integer of [lo, hi] (inclusive) equally likely. Throws if lo > hi.
    std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
    // Standard normal N(0, 1), polar method; the second value of a pair is kept for the next call.
    double normal();
    double normal(double mean, double stddev);
    // Uniform over the numbers k/2 in [lo, hi] ("small integers and halves": with
    // lo = −2, hi = 2 the values are −2, −1.5, …, 2). Throws if there is none.
    double pick_halves(double lo, double hi);

private:
    prng() = default;
    state_type s_{};
    bool has_spare_ = false;
    double spare_ = 0.0;
};

}  // namespace attn
