// io/npy_read.hpp — reads a NumPy .npy file into an nd_array. Accepted: float64
// ('<f8') and float32 ('<f4', widened exactly to double), C order, rank 1..3;
// bool ('|b1') only when the caller allows it (masks). Everything else — Fortran
// order, big-endian, integers, complex, object arrays, truncated data — is refused
// with what was found.
#pragma once

#include <string>

#include "io/nd_array.hpp"

namespace attn::io {

struct npy_options {
    bool allow_bool = false;  // masks may be stored as numpy bool
};

nd_array read_npy(const std::string& path, const npy_options& options = {});

}  // namespace attn::io
