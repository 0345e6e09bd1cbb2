// grade/variant_memo.cpp — see variant_memo.hpp.
#include "grade/variant_memo.hpp"

#include <algorithm>
#include <numeric>

#include "grade/parallel.hpp"
#include "grade/variant.hpp"

namespace attn::grade {

constexpr std::uint8_t not_distinguishable = 0x80;  // in a draws byte

void variant_memo::learn(const exercise& x, const std::string& secret, const std::vector<std::string>& students) {
    if (secret.empty() || !x.variant.enabled) return;
    std::vector<std::uint64_t> seeds(students.size());  // [students] in the class's order
    std::vector<std::uint8_t> draws(students.size());
    parallel_for(students.size(), grading_threads(), [&](std::size_t i) {
        variant_request req;
        req.student = students[i];
        req.secret = secret;
        req.practice_ok = false;
        const exercise_numbers n = numbers_for(x, req);
        seeds[i] = n.seed;
        draws[i] = static_cast<std::uint8_t>(std::min(n.redraws, 0x7f) | (n.distinguishable ? 0 : not_distinguishable));
    });
    std::vector<std::size_t> order(students.size());  // by seed, for the binary search in find()
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return seeds[a] < seeds[b]; });
    table t;
    for (std::size_t i : order) {
        t.seeds.push_back(seeds[i]);
        t.draws.push_back(draws[i]);
    }
    by_exercise_[x.id] = std::move(t);
}

std::optional<variant_draws> variant_memo::find(const std::string& exercise_id, std::uint64_t seed) const {
    const auto it = by_exercise_.find(exercise_id);
    if (it == by_exercise_.end()) return std::nullopt;
    const table& t = it->second;
    const auto at = std::lower_bound(t.seeds.begin(), t.seeds.end(), seed);
    if (at == t.seeds.end() || *at != seed) return std::nullopt;
    const std::uint8_t d = t.draws[static_cast<std::size_t>(at - t.seeds.begin())];
    return variant_draws{d & 0x7f, (d & not_distinguishable) == 0};
}

}  // namespace attn::grade
