// model/init.hpp — a fresh model's weights, minGPT's way: every linear weight and
// embedding from N(0, 0.02²), the residual projections (attn.c_proj, mlp.c_proj) from
// N(0, (0.02/√(2·n_layer))²) so the residual stream's variance does not grow with depth,
// biases 0, layer norms weight 1 and bias 0. The draws come from attn's own generator
// (core/prng) in for_each_param's order, so a seed gives the same weights everywhere.
#pragma once

#include <cstdint>

#include "model/params.hpp"

namespace attn::model {

template <class T>
model_params<T> init_params(const architecture& config, std::uint64_t seed);

}  // namespace attn::model
