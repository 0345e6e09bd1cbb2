// io/input_read.hpp — the one way attn reads a file it was given: trace specs, .npy,
// .csv, lesson TOML, answer TOML/JSON, the course secret, standard input ("-"); and the
// files of a folder it was given (list_folder: a student's answers).
//
//   * regular files only: a directory, FIFO, device or socket is refused with a clear
//     error, without blocking (opened O_NONBLOCK, then checked with fstat);
//   * a size limit checked before reading (from the file's size), and again while
//     reading (files that grow, /proc, standard input read in bounded chunks);
//   * TOML text is checked for nesting depth before the TOML parser sees it
//     (io/toml_depth.hpp), because a deep document overflows the parser's stack;
//   * every file read is registered as an input of this run (io/input_registry.hpp),
//     so the output writer refuses to write over it.
// Every failure is an input_error with the file and a reason word.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "io/input_error.hpp"

namespace attn::io {

// The default largest input: 64 MiB (a spec, lesson or CSV is far smaller; .npy files
// are bounded by the element budget instead, io/size_budget.hpp).
constexpr std::size_t default_max_input_bytes = std::size_t{64} << 20;

struct input_limits {
    std::size_t max_bytes = default_max_input_bytes;
    bool toml = false;         // check TOML nesting (io/toml_depth.hpp) before returning the text
    std::string what = "file";  // in messages: "cannot open the <what>: no such file"
};

// How "-" (standard input) is named in messages.
inline const char* const stdin_name = "<stdin>";

// Reads the whole input. "-" reads standard input in bounded chunks.
std::string read_input_file(const std::string& path, const input_limits& limits = {});

// An open, checked input for readers that stream (the .npy reader reads its header
// before deciding how much to allocate).
class input_file {
public:
    // Opens and checks `path` ("-" = standard input) and registers it as an input.
    explicit input_file(const std::string& path, const std::string& what = "file");
    ~input_file();
    input_file(const input_file&) = delete;
    input_file& operator=(const input_file&) = delete;

    const std::string& name() const { return name_; }  // the path, or <stdin>
    bool sized() const { return sized_; }              // a regular file: size() is known
    std::size_t size() const { return size_; }
    // Reads up to n bytes (fewer only at end of file). Throws input_error on a read error.
    std::size_t read(char* buf, std::size_t n);

private:
    std::string name_;
    int fd_ = -1;
    bool owned_ = false, sized_ = false;
    std::size_t size_ = 0;
};

// The files of a folder a user handed in (a student's answers: a zip's own folder, one
// or a few levels down), in path order: those whose extension is one of `extensions`,
// in subfolders too down to `max_depth` levels. Hidden entries, __MACOSX and symbolic
// links are never followed; every other file is skipped. Each skipped link or file is
// named with why ("ignored: not a .toml or .json answer file"). A folder that cannot be
// read throws input_error (reason "unreadable").
struct folder_files {
    std::vector<std::string> files;
    std::vector<std::pair<std::string, std::string>> skipped;  // path, why
    std::size_t bytes = 0;                                      // the files' total size
};
folder_files list_folder(const std::string& dir, const std::vector<std::string>& extensions, int max_depth,
                         const std::string& what);

}  // namespace attn::io
