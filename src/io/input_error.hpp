// io/input_error.hpp — the one exception io throws for bad user inputs (spec files,
// .npy, .csv, lesson and answer files as read by io/input_read). The message already
// carries "file:line:col: " (or "file:offset N: ") where there is one, says what was
// expected and what was found; the CLI prints it and exits 2. `reason` is a short stable
// word for reports and gradebooks (not-found, not-a-file, too-large, too-deep,
// unreadable, syntax, ...). The place and the exit code live in attn::error, the root.
#pragma once

#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace attn::io {

// Where something is: a spec file position, or a data file with a line/column
// (CSV) or a byte offset (.npy). line 0 = the file as a whole. (core/error.hpp)
using attn::source_pos;

struct input_error : attn::error {
    using attn::error::error;
};

}  // namespace attn::io
