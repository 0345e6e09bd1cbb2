// io/input_error.hpp — the one exception io throws for bad user inputs (spec files,
// .npy, .csv). The message already carries "file:line:col: " where there is one,
// says what was expected and what was found; the CLI prints it and exits 2.
#pragma once

#include <stdexcept>
#include <string>

namespace attn::io {

// Where something is: a spec file position, or a data file with a line/column
// (CSV) or an element index (.npy). line 0 = the file as a whole.
struct source_pos {
    std::string file;
    int line = 0;
    int column = 0;
    std::string str() const;  // "examples/trace/cat.toml:12:5" (or just the file)
};

struct input_error : std::runtime_error {
    input_error(const source_pos& where, const std::string& message);
    explicit input_error(const std::string& message);
};

}  // namespace attn::io
