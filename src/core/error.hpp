// core/error.hpp — the one root of every error attn reports. Like CLI11's CLI::Error it
// carries the process exit code; it also carries the place the problem is in: a file
// with a line and column (text files), or a byte offset (binary files: .npy,
// checkpoints). `main` catches this one type, prints what() terminal-safe and exits
// with exit_code(). Every error type of every floor derives from it (io::input_error,
// shape_error, lessons::lesson_error, grade::submission_error, ...); nothing catches one
// of them to rethrow it as another.
//
//   throw attn::error({path, 12, 5}, "expected a number, found \"x\"");   // path:12:5: ...
//   throw attn::error(attn::source_pos::at_offset(path, 128), "...");    // path:offset 128: ...
//   throw attn::error("no lesson 99");                                    // no place
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace attn {

// Where something is: a text file's line and column (1-based; line 0 = the file as a
// whole) or a binary file's byte offset (offset ≥ 0; then line and column are unused).
struct source_pos {
    std::string file;
    int line = 0;
    int column = 0;
    std::int64_t offset = -1;  // byte offset in a binary file, -1 = none
    static source_pos at_offset(std::string file, std::int64_t byte_offset);
    bool empty() const { return file.empty(); }
    // "lessons/04.toml:12:5", "model.bin:offset 128", or the file alone. Control
    // characters in the name are escaped (\xNN): a name never moves the cursor.
    std::string str() const;
};

class error : public std::runtime_error {
public:
    source_pos where;            // empty when the problem has no place
    std::string detail;          // the message without the place prefix
    std::string reason = "invalid";  // a short stable word for reports and gradebooks

    // what() = "<where>: <message>" (or the message alone when where is empty).
    explicit error(const std::string& message, int exit_code = 2);
    error(const source_pos& where, const std::string& message, int exit_code = 2);
    error(const std::string& reason_word, const source_pos& where, const std::string& message, int exit_code = 2);

    // what() exactly as given (already carrying its place in its own words).
    struct as_written {};
    error(as_written, const std::string& reason_word, const source_pos& where, const std::string& text,
          int exit_code = 2);

    int exit_code() const { return exit_code_; }

private:
    int exit_code_ = 2;
};

// A verb's way to end the process with a code and nothing more to say (e.g. 1 when a
// check failed, after the report was printed). main prints nothing for it.
struct exit_request : error {
    explicit exit_request(int exit_code) : error(std::string(), exit_code) {}
};

}  // namespace attn
