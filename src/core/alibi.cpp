// core/alibi.cpp — linear distance biases (see alibi.hpp).
#include "core/alibi.hpp"

#include <cmath>

namespace attn {

matrix linear_distance_bias(std::size_t n_q, std::size_t n_k, double slope, std::size_t offset) {
    matrix b({n_q, n_k});  // [n_q, n_k]
    for (std::size_t i = 0; i < n_q; ++i) {
        const double pos = static_cast<double>(i + offset);
        for (std::size_t j = 0; j < n_k; ++j) {
            const double distance = std::fabs(pos - static_cast<double>(j));
            b(i, j) = distance == 0.0 ? 0.0 : -slope * distance;  // never −0 on the diagonal
        }
    }
    return b;
}

std::vector<double> alibi_slopes(std::size_t heads) {
    std::vector<double> s;
    for (std::size_t h = 1; h <= heads; ++h)
        s.push_back(std::exp2(-8.0 * static_cast<double>(h) / static_cast<double>(heads)));
    return s;
}

std::vector<attention_options> alibi_options(std::size_t n_q, std::size_t n_k, const std::vector<double>& slopes,
                                             const attention_options& base, std::size_t offset) {
    std::vector<attention_options> out;
    for (double slope : slopes) {
        attention_options o = base;
        const matrix distance_bias = linear_distance_bias(n_q, n_k, slope, offset);  // [n_q, n_k]
        // A bias already in base stays and the distance bias adds to it.
        o.bias = base.bias ? matrix(*base.bias + distance_bias) : distance_bias;
        out.push_back(o);
    }
    return out;
}

}  // namespace attn
