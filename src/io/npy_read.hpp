// io/npy_read.hpp — reads a NumPy .npy file into an nd_array, trusting nothing in it.
// Accepted: format versions 1.0, 2.0 and 3.0; float64 ('<f8') and float32 ('<f4',
// widened exactly to double), C order, rank 1..3, every axis at least 1; bool ('|b1',
// bytes 0 or 1 only) when the caller allows it (masks). Before any allocation: the
// header length is checked against the file, the header dict is parsed here (not by
// xtensor's reader): dims as non-negative integers with an overflow-checked product,
// dtype and fortran_order validated, the element count within the budget
// (io/size_budget.hpp), and the data bytes after the header exactly the declared size.
// Everything else is refused with what was found.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "io/nd_array.hpp"

namespace attn::io {

struct npy_options {
    bool allow_bool = false;  // masks may be stored as numpy bool
};

nd_array read_npy(const std::string& path, const npy_options& options = {});

// The element count a .npy header declares, read without the data (nothing when the
// file or its header is unusable: read_npy then says why). For budgets checked over
// several inputs before any is read.
std::optional<std::size_t> npy_element_count(const std::string& path, const npy_options& options = {});

// The same from bytes in memory (the fuzz harness); `display_path` names it in messages.
nd_array parse_npy(const std::string& bytes, const std::string& display_path, const npy_options& options = {});

}  // namespace attn::io
