// trace/file_write.hpp — writing outputs so that nothing is ever half-written:
// a file goes to a temporary name beside its target and is renamed into place;
// a directory's files are all written to a temporary directory first, then
// renamed one by one into the target (created if missing).
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>

namespace attn::trace {

struct write_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Writes `content` to `path` via path.tmp-<pid> and rename(). Throws write_error.
void write_file_atomically(const std::string& path, const std::string& content);

// Writes every (file name → bytes) into directory `dir`. Every file is complete in a
// temporary directory before the first one moves; on failure nothing moves.
void write_directory_atomically(const std::string& dir, const std::map<std::string, std::string>& files);

}  // namespace attn::trace
