// io/output_writer.hpp — the one way attn writes a file (trace exports, HTML, JSON,
// gradebooks, JUnit, results.json, exercise templates). Nothing is ever half-written
// and nothing that is not ours is ever replaced:
//
//   * a path that is, or resolves to, one of this run's inputs is refused (same
//     device and inode, or the same real path — io/input_registry.hpp);
//   * only a regular file is ever replaced: a directory, device, FIFO, socket or
//     symbolic link at the path is refused, never renamed over. Standard output is
//     written only when asked for with "-";
//   * an answer file (existing::keep) that exists is refused unless forced (--force);
//   * content goes to a temporary file beside the target, then rename() puts it in
//     place; temporaries are removed on failure and on SIGINT/SIGTERM
//     (io/temp_registry.hpp);
//   * an export directory is owned through a manifest (.attn-manifest, the names of
//     the files the last run wrote): stale files of an earlier run are removed; a
//     non-empty directory without a manifest is refused, and so is a file the new run
//     would write over that the manifest does not list.
// Failures throw write_error (the CLI prints it and exits 2).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "io/output_checks.hpp"

namespace attn::io {

struct write_error : error {
    using error::error;
};

// What to do when the target file already exists.
enum class existing {
    replace,  // reports, exports: replaced (if it is a regular file and not an input)
    keep,     // answer files the user fills in: refused unless forced
};

// "-" names standard output for every file output of attn (reports, exports, answer
// files); output_writer::write_file and staged_file write it, the one place that does.
inline bool is_stdout(const std::string& path) { return path == "-"; }

// The name of the manifest in an export directory.
inline const char* const manifest_name = ".attn-manifest";

class output_writer {
public:
    // force: replace existing answer files too. make_parents: create missing parent
    // folders (grade's reports; trace refuses a path whose folder does not exist).
    explicit output_writer(bool force = false, bool make_parents = false) : force_(force), make_parents_(make_parents) {}

    // Checks `path` as write_file would, without writing: call for every output before
    // writing the first, so a refused output leaves every other untouched.
    void check_file(const std::string& path, existing e = existing::replace) const;
    // Writes `content` to `path` ("-" = standard output).
    void write_file(const std::string& path, std::string_view content, existing e = existing::replace) const;

    // Checks an export directory as staged_directory::commit does, without writing: a
    // file about to be replaced must be one the manifest vouches for (size and hash of
    // what attn wrote) and not one of this run's inputs.
    void check_dir(const std::string& dir, const std::map<std::string, std::string>& files) const;

private:
    bool force_;
    bool make_parents_;
};

// Streaming forms, for exports too large to build in memory first (io/output_staged.cpp).
// The same refusals as output_writer (checked when the output is opened, and again when
// it is committed); temporaries tracked for SIGINT/SIGTERM.

// One output file streamed under a temporary name beside it; commit() renames it into
// place. Destroyed without commit(), it removes the temporary file. Writes go through a
// 1 MiB buffer; larger ones go straight to the file.
class staged_file {
public:
    // target "-": standard output (written as the buffer fills, flushed and checked at
    // commit; nothing staged). temp given: a file inside a staged_directory.
    explicit staged_file(std::string target, std::string temp = "");
    ~staged_file();
    staged_file(const staged_file&) = delete;
    staged_file& operator=(const staged_file&) = delete;
    void write(const void* data, std::size_t bytes);
    void write(const std::string& text) { write(text.data(), text.size()); }
    void finish();  // flush and close; the file stays under its temporary name
    void commit(bool existing_ok = true);  // finish() and rename into place (an existing target: replaced if ok)
    std::size_t bytes_written() const { return written_; }
    std::string content_hash() const { return hash_.value(); }  // of every byte written

private:
    void flush();
    detail::content_hash hash_;
    std::string target_, temp_;
    bool checked_;  // a top-level output: the target is checked like output_writer's
    int fd_ = -1, slot_ = -1;
    std::string buffer_;
    std::size_t written_ = 0;
    bool done_ = false;
    bool stdout_ = false;  // target "-"
};

// An export directory's files streamed one by one into a temporary directory beside it;
// commit() creates the target if missing, checks every name against its manifest, moves
// them in, removes the previous export's stale files and writes the new manifest.
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
    int slot_ = -1;
    std::vector<std::string> names_;
    detail::manifest written_;  // what each finished file is: its size and hash
    std::vector<int> finished_slots_;  // finished files in temp_, removed on a signal
    void finished(const std::string& name, const staged_file& f);
    std::map<std::string, std::unique_ptr<staged_file>> open_;
    bool done_ = false;
};

}  // namespace attn::io
