// cli/grade_output.hpp — where `attn grade` writes its report files, through the one
// output writer (io/output_writer.hpp): never over an input (a submission), a device, a
// FIFO or a symlink; whole or not at all (temporary file + rename, removed on
// SIGINT/SIGTERM). The grade floor only makes the texts (grade/report.hpp).
#pragma once

#include <memory>
#include <string>

namespace attn::io {
class staged_file;
}

namespace attn::cli {

// Creates missing parent folders. Throws io::write_error naming the path on failure.
// Path "-" writes to standard output.
void write_file_atomic(const std::string& path, const std::string& text);

// The same, written piece by piece (a class's gradebook, row by row): the temporary file
// is renamed over the target by commit() (the target is checked again then: the class's
// files are inputs by that time), and removed if commit() is never reached.
// Path "-" writes to standard output directly, "/dev/stderr" to standard error.
class streamed_file {
public:
    explicit streamed_file(const std::string& path);
    ~streamed_file();
    streamed_file(const streamed_file&) = delete;
    streamed_file& operator=(const streamed_file&) = delete;
    void write(const std::string& text);
    void commit();

private:
    std::string path_;
    std::unique_ptr<io::staged_file> staged_;  // null for standard output or error
};

}  // namespace attn::cli
