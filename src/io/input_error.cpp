// io/input_error.cpp — see input_error.hpp.
#include "io/input_error.hpp"

namespace attn::io {

std::string source_pos::str() const {
    if (line <= 0) return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

input_error::input_error(const source_pos& where, const std::string& message)
    : std::runtime_error(where.str().empty() ? message : where.str() + ": " + message) {}

input_error::input_error(const std::string& message) : std::runtime_error(message) {}

}  // namespace attn::io
