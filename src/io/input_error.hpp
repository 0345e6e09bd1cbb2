// io/input_error.hpp — the one exception io throws for bad user inputs (spec files,
// .npy, .csv, lesson and answer files as read by io/input_read). The message already
// carries "file:line:col: " where there is one, says what was expected and what was
// found; the CLI prints it and exits 2. `reason` is a short stable word for reports
// and gradebooks (not-found, not-a-file, too-large, too-deep, unreadable, syntax, ...).
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
    source_pos where;
    std::string reason = "invalid";
    std::string detail;  // the message without the position prefix
    input_error(const source_pos& where, const std::string& message);
    input_error(const std::string& reason_word, const source_pos& where, const std::string& message);
    explicit input_error(const std::string& message);
};

}  // namespace attn::io
