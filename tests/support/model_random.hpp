// tests/support/model_random.hpp — random models and token rows for the model tests:
// the initial parameters attn trains from, each then moved by normal noise (so no weight
// sits at its initial 0 or 1), and tokens drawn uniformly from the vocabulary; both
// from attn's own generator, the same on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/prng.hpp"
#include "model/init.hpp"

namespace attn::testing {

// init_params(c, seed), then N(0, sd²) noise added to every weight.
template <class T>
model::model_params<T> perturbed_params(const model::architecture& c, std::uint64_t seed, double sd) {
    auto p = model::init_params<T>(c, seed);
    attn::prng g(seed + 1);
    model::for_each_param(p, [&](const std::string&, model::param_kind, auto& t) {
        for (auto& x : t) x += static_cast<T>(g.normal(0.0, sd));
    });
    return p;
}

// n token ids, uniform in [0, vocab).
inline std::vector<int> random_tokens(std::size_t n, std::size_t vocab, std::uint64_t seed) {
    attn::prng g(seed);
    std::vector<int> t(n);
    for (auto& x : t) x = static_cast<int>(g.uniform_int(0, static_cast<std::int64_t>(vocab) - 1));
    return t;
}

}  // namespace attn::testing
