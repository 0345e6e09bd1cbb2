// io/nd_array.hpp — a small N-d array of doubles as read from a spec, a .npy or a
// .csv, before it is checked and cut into the core's matrices. C order always.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/input_error.hpp"

namespace attn::io {

struct nd_array {
    std::vector<std::size_t> shape;  // rank 1..3 as the user gave it
    std::vector<double> data;        // [prod(shape)] row-major (C order)
    source_pos where;                // the spec key that named it
    std::string origin;              // "inline", or the path as written in the spec

    std::size_t rank() const { return shape.size(); }
    std::size_t size() const;
    // "[2 × 5 × 4]"
    std::string shape_text() const;
    // Element by multi-index (C order).
    double at(std::size_t i) const { return data[i]; }
};

// "[1, 0, 3]" — the multi-index of flat element `flat` in an array of `shape`.
std::string index_text(const std::vector<std::size_t>& shape, std::size_t flat);

// Refuses NaN and ±Inf, naming the first one's multi-index and the axis names,
// e.g. "Q.npy: Q[0, 2, 1] is nan (axes [batch, n_q, d_k]); inputs must be finite".
void require_finite(const nd_array& a, const std::string& name, const std::vector<std::string>& axes);

}  // namespace attn::io
