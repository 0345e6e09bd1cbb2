// trace/file_write.hpp — writing outputs so that nothing is ever half-written:
// a file goes to a temporary name beside its target and is renamed into place;
// a directory's files are all written to a temporary directory first, then
// renamed one by one into the target (created if missing).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn::trace {

struct write_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One output file streamed under a temporary name (path.tmp-<pid>, beside it); commit()
// renames it into place. Destroyed without commit(), it removes the temporary file, so
// a failure (or an exception anywhere) leaves no half-written output. Writes go through
// a 1 MiB buffer; larger ones go straight to the file.
class staged_file {
public:
    explicit staged_file(std::string target, std::string temp = "");
    ~staged_file();
    staged_file(const staged_file&) = delete;
    staged_file& operator=(const staged_file&) = delete;
    void write(const void* data, std::size_t bytes);
    void write(const std::string& text) { write(text.data(), text.size()); }
    void finish();   // flush and close; the file stays under its temporary name
    void commit();   // finish() and rename into place
    std::size_t bytes_written() const { return written_; }

private:
    void flush();
    std::string target_, temp_;
    int fd_ = -1;
    std::string buffer_;
    std::size_t written_ = 0;
    bool done_ = false;
};

// A directory's files streamed one by one into a temporary sibling directory; commit()
// creates the target if missing and moves them all in. Destroyed without commit(),
// it removes the temporary directory.
class staged_directory {
public:
    explicit staged_directory(const std::string& dir);
    ~staged_directory();
    staged_directory(const staged_directory&) = delete;
    staged_directory& operator=(const staged_directory&) = delete;
    // Streams one file `name` through `fill`, complete (finished) when it returns.
    void add(const std::string& name, const std::function<void(staged_file&)>& fill);
    // Or by hand, several at once: open, write, close (complete from then on).
    staged_file& open(const std::string& name);
    staged_file& file(const std::string& name);  // one that is open
    void close(const std::string& name);
    void commit();
    std::size_t files() const { return names_.size(); }

private:
    std::string dir_, temp_;
    std::vector<std::string> names_;
    std::map<std::string, std::unique_ptr<staged_file>> open_;
    bool done_ = false;
};

// Writes `content` to `path` via path.tmp-<pid> and rename(). Throws write_error.
void write_file_atomically(const std::string& path, const std::string& content);

// Writes every (file name → bytes) into directory `dir`. Every file is complete in a
// temporary directory before the first one moves; on failure nothing moves.
void write_directory_atomically(const std::string& dir, const std::map<std::string, std::string>& files);

}  // namespace attn::trace
