// io/input_error.cpp — see input_error.hpp.
#include "io/input_error.hpp"

#include "io/terminal_safe.hpp"

namespace attn::io {

std::string source_pos::str() const {
    const std::string f = terminal_safe(file);
    if (line <= 0) return f;
    return f + ":" + std::to_string(line) + ":" + std::to_string(column);
}

input_error::input_error(const source_pos& w, const std::string& message)
    : std::runtime_error(w.str().empty() ? message : w.str() + ": " + message), where(w), detail(message) {}

input_error::input_error(const std::string& reason_word, const source_pos& w, const std::string& message)
    : input_error(w, message) {
    reason = reason_word;
}

input_error::input_error(const std::string& message) : std::runtime_error(message), detail(message) {}

}  // namespace attn::io
