// model/file_error.hpp — the error a checkpoint or config file raises: the file, the
// byte offset in it where the problem is, what was expected and what was found.
// Printed as "model.safetensors: byte 1234: …"; the CLI exits 2 on it (it is an
// io::input_error, like every bad-input error of attn).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/input_error.hpp"
#include "io/terminal_safe.hpp"

namespace attn::model {

struct file_error : io::input_error {
    std::string file;          // the path as given
    std::uint64_t offset = 0;  // bytes from the start of the file
    file_error(const std::string& reason_word, const std::string& path, std::uint64_t at, const std::string& message)
        : io::input_error(reason_word, io::source_pos{path, 0, 0}, "byte " + std::to_string(at) + ": " + message),
          file(path),
          offset(at) {}
};

// Text from a file, as a message shows it: terminal-safe and cut to about 80 bytes
// (at a character boundary) with "…", since a tensor name or number may be megabytes.
inline std::string shown(std::string_view text) {
    std::size_t n = text.size() <= 96 ? text.size() : 80;
    while (n > 0 && n < text.size() && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
    return io::terminal_safe(std::string(text.substr(0, n))) + (n < text.size() ? "…" : "");
}

}  // namespace attn::model
