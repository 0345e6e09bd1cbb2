// core/near_index.hpp — vectors found again when they are near, in time about linear in
// how many are stored: an index over families of same-shaped vectors (one family per
// question part, say) that answers "which stored vectors are within the tolerance of
// this one?" without comparing against them all.
//
// A family is keyed on a few of its entries, those that differ most across a sample,
// each quantised to buckets at least twice the tolerance wide and hashed with the
// family's salt. A lookup tries every bucket the tolerance reaches from each keyed entry
// (1 to 3 per entry), so noise below the tolerance still finds the vector; every
// candidate is then confirmed on every entry, and at most `limit` candidates are looked
// at (more under one key is a value everyone shares, not a near copy).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tolerance.hpp"
#include "core/types.hpp"

namespace attn {

// How one family is keyed.
struct near_key {
    std::vector<std::size_t> at;  // flat positions keyed
    double width = 1.0;           // bucket width (≥ twice the tolerance)
    tolerance tol;
    std::uint64_t salt = 0;

    // The (at most `entries`) positions that fall in the most distinct buckets over
    // sample, each in at least a quarter of them; none when the family is (nearly) the
    // same everywhere: then matching it proves nothing. sample: ≥ 1 vectors of one shape.
    static near_key choose(const std::vector<matrix>& sample, const tolerance& tol, std::size_t entries, std::uint64_t salt);
    std::uint64_t key(const matrix& m) const;
    // Every key a vector within the tolerance of m may be stored under.
    std::vector<std::uint64_t> keys_near(const matrix& m) const;
};

// One 64-bit value from two (SplitMix64's finaliser over h ^ v): a family's salt.
std::uint64_t mix_hash(std::uint64_t h, std::uint64_t v);

// Ids under keys, built once and then only read; the vectors themselves are not kept
// (the caller recomputes a candidate's to confirm it). 8 bytes an entry: a key's low 32
// bits and the id, so a stray match of those bits is left to the confirmation.
class near_ids {
public:
    void add(std::uint64_t key, std::uint32_t id) { entries_.push_back({static_cast<std::uint32_t>(key), id}); }
    void seal();  // sorts: call once every add is done, before any visit
    // each(id) for the ids under any key a vector within the tolerance of m may have,
    // at most limit of them looked at in all.
    template <class Each>
    void visit(const near_key& key, const matrix& m, std::size_t limit, Each each) const {
        std::size_t tried = 0;
        for (std::uint64_t k : key.keys_near(m)) {
            const auto k32 = static_cast<std::uint32_t>(k);
            for (auto it = first_of(k32); it != entries_.end() && it->first == k32 && tried < limit; ++it, ++tried)
                each(it->second);
        }
    }

private:
    std::vector<std::pair<std::uint32_t, std::uint32_t>>::const_iterator first_of(std::uint32_t k32) const;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> entries_;  // (key's low 32 bits, id), sorted by seal
};

// Vectors kept as they come (a class's submissions, one by one), each under its key and
// its family, its numbers as floats in one arena (float's 7 digits are far below any
// tolerance worth keying): 16 bytes + 4 per number.
class near_values {
public:
    void keep(const near_key& key, std::uint32_t id, std::uint32_t family, const matrix& m);
    // The ids of the kept vectors of family within key.tol of m (the kept vector taken as
    // the expected value), other than skip; at most limit kept vectors looked at in all.
    std::set<std::uint32_t> close_to(const near_key& key, const matrix& m, std::uint32_t family, std::uint32_t skip,
                                     std::size_t limit) const;

private:
    struct held {
        std::uint32_t id = 0;
        std::uint32_t family = 0;
        std::uint32_t at = 0;             // first number in arena_
        std::uint32_t next = UINT32_MAX;  // the vector kept before it under the same key
    };
    bool close(const held& h, const matrix& m, const tolerance& tol) const;
    std::unordered_map<std::uint64_t, std::uint32_t> latest_;  // key → the latest vector kept under it
    std::vector<held> kept_;
    std::vector<float> arena_;  // every kept vector's numbers, row-major
};

}  // namespace attn
