// core/shape_error.hpp — the one exception the core throws for inputs that do not
// chain. The message names both shapes by their axis names, e.g.
//   "K has d_k = 3 but Q has d_k = 4 (Q [n_q=5, d_k=4], K [n_k=5, d_k=3])".
#pragma once

#include <string>

#include "core/error.hpp"

namespace attn {

struct shape_error : error {
    using error::error;
};

}  // namespace attn
