// core/error.cpp — see error.hpp.
#include "core/error.hpp"

namespace attn {

namespace {

// The file name as visible text: C0 controls and DEL as \xNN. (io::terminal_safe does
// the full job for printed data; main passes every message through it too.)
std::string visible_name(const std::string& s) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    out.reserve(s.size());
    for (unsigned char c : s) {
        if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::string with_place(const source_pos& w, const std::string& message) {
    const std::string p = w.str();
    return p.empty() ? message : p + ": " + message;
}

}  // namespace

source_pos source_pos::at_offset(std::string file, std::int64_t byte_offset) {
    source_pos p;
    p.file = std::move(file);
    p.offset = byte_offset;
    return p;
}

std::string source_pos::str() const {
    const std::string f = visible_name(file);
    if (offset >= 0) return f + ":offset " + std::to_string(offset);
    if (line <= 0) return f;
    return f + ":" + std::to_string(line) + ":" + std::to_string(column);
}

error::error(const std::string& message, int exit_code)
    : std::runtime_error(message), detail(message), exit_code_(exit_code) {}

error::error(const source_pos& w, const std::string& message, int exit_code)
    : std::runtime_error(with_place(w, message)), where(w), detail(message), exit_code_(exit_code) {}

error::error(const std::string& reason_word, const source_pos& w, const std::string& message, int exit_code)
    : error(w, message, exit_code) {
    reason = reason_word;
}

error::error(as_written, const std::string& reason_word, const source_pos& w, const std::string& text, int exit_code)
    : std::runtime_error(text), where(w), detail(text), reason(reason_word), exit_code_(exit_code) {}

}  // namespace attn
