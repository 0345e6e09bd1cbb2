// io/csv_read.hpp — reads a numeric CSV into a 2-D nd_array: one row per line,
// comma-separated numbers; blank lines and lines starting with '#' are skipped.
// A cell that is not a number is refused with file:line:col.
#pragma once

#include <string>

#include "io/nd_array.hpp"

namespace attn::io {

nd_array read_csv(const std::string& path);

}  // namespace attn::io
