// core/positional.cpp — sinusoidal tables and adding a position matrix to tokens.
#include "core/positional.hpp"

#include <cmath>
#include <string>

#include <xtensor/xview.hpp>

#include "core/shape_error.hpp"

namespace attn {

matrix sinusoidal_positions(std::size_t n, std::size_t d, double base, std::size_t offset) {
    matrix p({n, d});  // [n, d]
    for (std::size_t r = 0; r < n; ++r) {
        const double pos = static_cast<double>(r + offset);
        for (std::size_t c = 0; c < d; ++c) {
            // Columns 2i and 2i+1 share the frequency 1 / base^(2i/d).
            const double pair = static_cast<double>(c - c % 2);
            const double angle = pos / std::pow(base, pair / static_cast<double>(d));
            p(r, c) = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
        }
    }
    return p;
}

positional_steps add_positions(const matrix& x, const matrix& p, std::size_t offset) {
    const std::string both = "(X [n=" + std::to_string(x.shape(0)) + ", d=" + std::to_string(x.shape(1)) + "], P [N=" +
                             std::to_string(p.shape(0)) + ", d=" + std::to_string(p.shape(1)) + "])";
    if (p.shape(1) != x.shape(1))
        throw shape_error("P has d = " + std::to_string(p.shape(1)) + " but X has d = " + std::to_string(x.shape(1)) +
                          " " + both);
    if (offset + x.shape(0) > p.shape(0))
        throw shape_error("the sequence needs positions " + std::to_string(offset) + " to " +
                          std::to_string(offset + x.shape(0)) + " (exclusive) but P has only N = " +
                          std::to_string(p.shape(0)) + " rows " + both);
    positional_steps s;
    s.tokens = x;
    s.positions = xt::view(p, xt::range(offset, offset + x.shape(0)), xt::all());  // [n, d]
    s.output = s.tokens + s.positions;                                            // [n, d]
    return s;
}

}  // namespace attn
