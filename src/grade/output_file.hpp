// grade/output_file.hpp — writing a report file whole or not at all: the text goes
// to a temporary file in the same folder, which is then renamed over the target.
#pragma once

#include <cstdio>
#include <string>

namespace attn::grade {

// Creates missing parent folders. Throws std::runtime_error naming the path on failure.
void write_file_atomic(const std::string& path, const std::string& text);

// The same, written piece by piece (a class's gradebook, row by row): the temporary file
// is renamed over the target by commit(), and removed if commit() is never reached.
// Path "-" writes to standard output directly.
class streamed_file {
public:
    explicit streamed_file(const std::string& path);
    ~streamed_file();
    streamed_file(const streamed_file&) = delete;
    streamed_file& operator=(const streamed_file&) = delete;
    void write(const std::string& text);
    void commit();

private:
    std::string path_, tmp_;
    std::FILE* f_ = nullptr;
    bool done_ = false;
};

}  // namespace attn::grade
