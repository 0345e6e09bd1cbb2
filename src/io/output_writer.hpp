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

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attn::io {

struct write_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What to do when the target file already exists.
enum class existing {
    replace,  // reports, exports: replaced (if it is a regular file and not an input)
    keep,     // answer files the user fills in: refused unless forced
};

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

    // Checks an export directory as write_dir would, without writing.
    void check_dir(const std::string& dir, const std::map<std::string, std::string>& files) const;
    // Writes every (file name → bytes) into `dir` (created if missing), then its manifest,
    // then removes the files of the previous run that this run did not write.
    void write_dir(const std::string& dir, const std::map<std::string, std::string>& files) const;

private:
    bool force_;
    bool make_parents_;
};

}  // namespace attn::io
