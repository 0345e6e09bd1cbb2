// trace/export_format.hpp — the byte forms every exporter shares: the .npy header
// (format 1.0, C order, '<f4' or '<f8') and numbers as the shortest text that reads
// back to the same value. `attn trace`'s exporters (trace/export.cpp) and the model's
// (trace/model_export.cpp) write through these, so their files agree byte for byte.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace attn::trace {

// The .npy header of a C-order float32 (f32) or float64 array of this shape.
std::string npy_header(const std::vector<std::size_t>& shape, bool f32);

// Shortest text that reads back to the same value; "1.0" rather than "1" (as
// nlohmann::json and Python print floats).
template <class T>
void append_number(fmt::memory_buffer& buf, T x) {
    const std::size_t start = buf.size();
    fmt::format_to(std::back_inserter(buf), "{}", x);
    for (std::size_t i = start; i < buf.size(); ++i)
        if (buf[i] == '.' || buf[i] == 'e' || buf[i] == 'n' || buf[i] == 'i') return;
    buf.append(std::string_view(".0"));
}

}  // namespace attn::trace
