// core/prng.cpp — SplitMix64, xoshiro256** and the distributions built on them (see prng.hpp).
#include "core/prng.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/internal_error.hpp"

namespace attn {

namespace {

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

std::uint64_t splitmix64_next(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::uint64_t hash64(std::string_view text) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::uint64_t combine_seed(std::uint64_t seed, std::uint64_t value) {
    // Mix the value first so that nearby values (student 17, 18) give unrelated seeds,
    // then mix again with the running seed; the rotation makes the order matter.
    std::uint64_t v = value;
    const std::uint64_t mixed = splitmix64_next(v);
    std::uint64_t s = rotl(seed, 17) ^ mixed;
    return splitmix64_next(s);
}

std::uint64_t combine_seed(std::initializer_list<std::string_view> parts) {
    std::uint64_t seed = 0x6174746e5f736565ULL;  // "attn_see": a fixed, non-zero start
    for (std::string_view p : parts) seed = combine_seed(seed, hash64(p));
    return seed;
}

prng::prng(std::uint64_t seed) {
    std::uint64_t sm = seed;
    for (auto& word : s_) word = splitmix64_next(sm);
    // SplitMix64 is a bijection of its counter, so four consecutive outputs cannot all be 0.
}

prng prng::from_state(const state_type& state) {
    if (state[0] == 0 && state[1] == 0 && state[2] == 0 && state[3] == 0)
        throw internal_error("prng: the all-zero xoshiro256** state never leaves zero");
    prng g;
    g.s_ = state;
    return g;
}

std::uint64_t prng::next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

double prng::uniform() {
    // The top 53 bits fill a double's mantissa exactly: no rounding, same on every platform.
    return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

double prng::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

std::int64_t prng::uniform_int(std::int64_t lo, std::int64_t hi) {
    if (lo > hi)
        throw internal_error("uniform_int: lo = " + std::to_string(lo) + " is above hi = " +
                                    std::to_string(hi));
    // Width of the range as unsigned arithmetic (wraps to 0 for the full 64-bit range).
    const std::uint64_t n = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    if (n == 0) return static_cast<std::int64_t>(next_u64());
    // Reject the lowest 2⁶⁴ mod n raw values so that every residue is hit equally often.
    const std::uint64_t threshold = (0 - n) % n;
    std::uint64_t r = next_u64();
    while (r < threshold) r = next_u64();
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + r % n);
}

double prng::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    double u = 0, v = 0, s = 0;
    do {
        u = 2.0 * uniform() - 1.0;
        v = 2.0 * uniform() - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double factor = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * factor;
    has_spare_ = true;
    return u * factor;
}

double prng::normal(double mean, double stddev) { return mean + stddev * normal(); }

double prng::pick_halves(double lo, double hi) {
    if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi))
        throw internal_error("pick_halves: need finite lo <= hi");
    // Work in half-units: k/2 ∈ [lo, hi] ⇔ k ∈ [⌈2·lo⌉, ⌊2·hi⌋].
    const double k_lo = std::ceil(2.0 * lo), k_hi = std::floor(2.0 * hi);
    if (k_lo > k_hi || std::fabs(k_lo) > 1e15 || std::fabs(k_hi) > 1e15)
        throw internal_error("pick_halves: no multiple of 1/2 in [" + std::to_string(lo) + ", " +
                                    std::to_string(hi) + "]");
    const std::int64_t k = uniform_int(static_cast<std::int64_t>(k_lo), static_cast<std::int64_t>(k_hi));
    return static_cast<double>(k) / 2.0;
}

}  // namespace attn
