// core/near_index.cpp — see near_index.hpp.
#include "core/near_index.hpp"

#include <algorithm>
#include <cmath>

#include "core/prng.hpp"

namespace attn {

namespace {

std::int64_t bucket(double v, double width) {
    if (std::isnan(v)) return INT64_MIN;
    if (std::isinf(v)) return v > 0 ? INT64_MAX : INT64_MIN + 1;
    return static_cast<std::int64_t>(std::floor(v / width));
}

// The buckets an expected value within the tolerance of a may lie in (1 to 3 of them).
std::vector<std::int64_t> reach(double a, const near_key& k) {
    if (!std::isfinite(a)) return {bucket(a, k.width)};
    const double d = (k.tol.atol + k.tol.rtol * std::fabs(a)) / (1.0 - k.tol.rtol) * 1.000001;
    const std::int64_t lo = bucket(a - d, k.width), hi = std::min(bucket(a + d, k.width), lo + 2);
    std::vector<std::int64_t> out;
    for (std::int64_t b = lo; b <= hi; ++b) out.push_back(b);
    return out;
}

}  // namespace

std::uint64_t mix_hash(std::uint64_t h, std::uint64_t v) {
    std::uint64_t state = h ^ v;
    return splitmix64_next(state);
}

near_key near_key::choose(const std::vector<matrix>& sample, const tolerance& tol, std::size_t entries, std::uint64_t salt) {
    near_key k;
    k.tol = tol;
    k.salt = salt;
    double biggest = 0.0;
    for (const auto& m : sample)
        for (double v : m)
            if (std::isfinite(v)) biggest = std::max(biggest, std::fabs(v));
    k.width = std::max(2.0 * (tol.atol + tol.rtol * biggest), 1e-9);
    std::vector<std::pair<std::size_t, std::size_t>> spread;  // (distinct buckets, position)
    for (std::size_t j = 0; j < sample.front().size(); ++j) {
        std::set<std::int64_t> seen;
        for (const auto& m : sample) seen.insert(bucket(m.flat(j), k.width));
        spread.push_back({seen.size(), j});
    }
    std::stable_sort(spread.begin(), spread.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::size_t need = std::max<std::size_t>(2, sample.size() / 4);
    for (const auto& [distinct, j] : spread)
        if (distinct >= need && k.at.size() < entries) k.at.push_back(j);
    return k;
}

std::uint64_t near_key::key(const matrix& m) const {
    std::uint64_t k = salt;
    for (std::size_t j : at) k = mix_hash(k, static_cast<std::uint64_t>(bucket(m.flat(j), width)));
    return k;
}

std::vector<std::uint64_t> near_key::keys_near(const matrix& m) const {
    std::vector<std::uint64_t> keys{salt};
    for (std::size_t j : at) {
        std::vector<std::uint64_t> next;
        for (std::int64_t b : reach(m.flat(j), *this))
            for (std::uint64_t k : keys) next.push_back(mix_hash(k, static_cast<std::uint64_t>(b)));
        keys.swap(next);
    }
    return keys;
}

void near_ids::seal() { std::sort(entries_.begin(), entries_.end()); }

std::vector<std::pair<std::uint32_t, std::uint32_t>>::const_iterator near_ids::first_of(std::uint32_t k32) const {
    return std::lower_bound(entries_.begin(), entries_.end(), std::make_pair(k32, std::uint32_t{0}));
}

void near_values::keep(const near_key& key, std::uint32_t id, std::uint32_t family, const matrix& m) {
    const std::uint64_t k = key.key(m);
    const auto found = latest_.find(k);
    kept_.push_back({id, family, static_cast<std::uint32_t>(arena_.size()), found == latest_.end() ? UINT32_MAX : found->second});
    for (double v : m) arena_.push_back(static_cast<float>(v));
    latest_[k] = static_cast<std::uint32_t>(kept_.size() - 1);
}

bool near_values::close(const held& h, const matrix& m, const tolerance& tol) const {
    for (std::size_t i = 0; i < m.size(); ++i)
        if (!is_close(m.flat(i), static_cast<double>(arena_[h.at + i]), tol)) return false;
    return true;
}

std::set<std::uint32_t> near_values::close_to(const near_key& key, const matrix& m, std::uint32_t family, std::uint32_t skip,
                                              std::size_t limit) const {
    std::set<std::uint32_t> out;
    std::size_t tried = 0;
    for (std::uint64_t k : key.keys_near(m)) {
        const auto head = latest_.find(k);
        for (std::uint32_t i = head == latest_.end() ? UINT32_MAX : head->second; i != UINT32_MAX && tried < limit;
             i = kept_[i].next, ++tried) {
            const held& h = kept_[i];  // a family's vectors all have one shape
            if (h.family == family && h.id != skip && close(h, m, key.tol)) out.insert(h.id);
        }
    }
    return out;
}

}  // namespace attn
