// grade/output_file.hpp — writing a report file whole or not at all: the text goes
// to a temporary file in the same folder, which is then renamed over the target.
#pragma once

#include <string>

namespace attn::grade {

// Creates missing parent folders. Throws std::runtime_error naming the path on failure.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace attn::grade
