// core/types.hpp — the tensor types every floor of attn shares.
// Doubles everywhere: the lessons print to 4 decimals and must match the seeds
// on every compiler, so there is no reason to trade precision for speed here.
#pragma once

#include <cstddef>
#include <xtensor/xtensor.hpp>

namespace attn {

using matrix = xt::xtensor<double, 2>;      // [rows, cols]
using vector = xt::xtensor<double, 1>;      // [n]
using tensor3 = xt::xtensor<double, 3>;     // [a, b, c]
using bool_matrix = xt::xtensor<bool, 2>;   // [rows, cols]

}  // namespace attn
