// core/shape_error.hpp — the one exception the core throws for inputs that do not
// chain. The message names both shapes by their axis names, e.g.
//   "K has d_k = 3 but Q has d_k = 4 (Q [n_q=5, d_k=4], K [n_k=5, d_k=3])".
#pragma once

#include <stdexcept>
#include <string>

namespace attn {

struct shape_error : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

}  // namespace attn
