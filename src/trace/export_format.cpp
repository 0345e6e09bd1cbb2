// trace/export_format.cpp — the .npy header (see export_format.hpp).
#include "trace/export_format.hpp"

namespace attn::trace {

std::string npy_header(const std::vector<std::size_t>& shape, bool f32) {
    std::string dims;
    for (std::size_t d : shape) dims += std::to_string(d) + ", ";
    if (shape.size() > 1) dims.erase(dims.size() - 2);
    else if (!shape.empty()) dims.erase(dims.size() - 1);  // "(5,)"
    std::string dict = std::string("{'descr': '") + (f32 ? "<f4" : "<f8") + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    const std::size_t total = 10 + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict += '\n';
    std::string h = "\x93NUMPY";
    h += '\x01';
    h += '\x00';
    h += static_cast<char>(dict.size() & 0xff);
    h += static_cast<char>((dict.size() >> 8) & 0xff);
    return h + dict;
}

}  // namespace attn::trace
