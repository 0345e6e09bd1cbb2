// core/rope.cpp — see rope.hpp: angles, then cos/sin, then the pair rotation.
#include "core/rope.hpp"

#include <cmath>
#include <string>

#include "core/shape_error.hpp"

namespace attn {

double rope_frequency(std::size_t pair, std::size_t d, double base) {
    return std::pow(base, -2.0 * static_cast<double>(pair) / static_cast<double>(d));
}

rope_steps rotary_embed_at(const matrix& x, const std::vector<double>& positions, double base, rope_pairing pairing) {
    const std::size_t n = x.shape(0), d = x.shape(1);
    if (d % 2 != 0) throw shape_error("rotary embeddings turn pairs of columns: d = " + std::to_string(d) + " is odd");
    if (positions.size() != n)
        throw shape_error("rotary embeddings: " + std::to_string(positions.size()) + " positions for " +
                          std::to_string(n) + " rows");
    if (!(base > 1.0) || !std::isfinite(base)) throw shape_error("rotary embeddings: the base must be a number > 1");
    const std::size_t pairs = d / 2;
    rope_steps r;
    r.base = base;
    r.pairing = pairing;
    r.positions = positions;
    r.input = x;  // [n, d]

    // Pass 1: one frequency per pair, slower and slower towards the last pair.
    r.frequencies = xt::zeros<double>({pairs});  // [d/2]
    for (std::size_t i = 0; i < pairs; ++i) r.frequencies(i) = rope_frequency(i, d, base);

    // Pass 2: the angle of every (position, pair), and its cosine and sine.
    r.angles = xt::zeros<double>({n, pairs});  // [n, d/2]
    r.cos = xt::zeros<double>({n, pairs});     // [n, d/2]
    r.sin = xt::zeros<double>({n, pairs});     // [n, d/2]
    for (std::size_t p = 0; p < n; ++p)
        for (std::size_t i = 0; i < pairs; ++i) {
            r.angles(p, i) = positions[p] * r.frequencies(i);
            r.cos(p, i) = std::cos(r.angles(p, i));
            r.sin(p, i) = std::sin(r.angles(p, i));
        }

    // Pass 3: turn each pair (x_2i, x_2i+1), or (x_i, x_{i+d/2}), by its angle.
    const bool adjacent = pairing == rope_pairing::adjacent;
    r.rotated = xt::zeros<double>({n, d});  // [n, d]
    for (std::size_t p = 0; p < n; ++p)
        for (std::size_t i = 0; i < pairs; ++i) {
            const std::size_t c0 = adjacent ? 2 * i : i, c1 = adjacent ? 2 * i + 1 : i + pairs;
            const double a = x(p, c0), b = x(p, c1);
            r.rotated(p, c0) = a * r.cos(p, i) - b * r.sin(p, i);
            r.rotated(p, c1) = a * r.sin(p, i) + b * r.cos(p, i);
        }
    return r;
}

rope_steps rotary_embed(const matrix& x, double base, double offset, rope_pairing pairing) {
    std::vector<double> positions(x.shape(0));
    for (std::size_t p = 0; p < positions.size(); ++p) positions[p] = offset + static_cast<double>(p);
    return rotary_embed_at(x, positions, base, pairing);
}

}  // namespace attn
