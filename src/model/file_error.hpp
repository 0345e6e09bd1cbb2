// model/file_error.hpp — the error a checkpoint or config file raises: the file, the
// byte offset in it where the problem is, what was expected and what was found.
// Printed as "model.safetensors: byte 1234: …"; the CLI exits 2 on it (it is an
// io::input_error, like every bad-input error of attn).
#pragma once

#include <cstdint>
#include <string>

#include "io/input_error.hpp"

namespace attn::model {

struct file_error : io::input_error {
    std::string file;          // the path as given
    std::uint64_t offset = 0;  // bytes from the start of the file
    file_error(const std::string& reason_word, const std::string& path, std::uint64_t at, const std::string& message)
        : io::input_error(reason_word, io::source_pos{path, 0, 0}, "byte " + std::to_string(at) + ": " + message),
          file(path),
          offset(at) {}
};

}  // namespace attn::model
