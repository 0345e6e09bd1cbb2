// grade/variant_memo.cpp — see variant_memo.hpp.
#include "grade/variant_memo.hpp"

#include <algorithm>

#include "core/parallel_for.hpp"
#include "grade/variant.hpp"

namespace attn::grade {

constexpr std::uint8_t not_distinguishable = 0x80;  // in a draws byte

void variant_memo::learn(const exercise& x, const std::string& secret, const std::vector<std::string>& students) {
    if (secret.empty() || !x.variant.enabled) return;
    std::vector<std::pair<std::uint64_t, std::uint8_t>> learnt(students.size());  // [students] (seed, draws)
    parallel_for(students.size(), threads_from_env("ATTN_GRADE_THREADS"), [&](std::size_t i) {
        variant_request req;
        req.student = students[i];
        req.secret = secret;
        req.practice_ok = false;
        const exercise_numbers n = numbers_for(x, req);
        learnt[i] = {n.seed, static_cast<std::uint8_t>(std::min(n.redraws, 0x7f) | (n.distinguishable ? 0 : not_distinguishable))};
    });
    std::sort(learnt.begin(), learnt.end());  // by seed, for the binary search in find()
    table t;
    for (const auto& [seed, d] : learnt) t.seeds.push_back(seed), t.draws.push_back(d);
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
