// io/output_checks.hpp — private to the output writer (output_writer.cpp defines these,
// output_staged.cpp uses them too): the checks every target passes before anything is
// written, the temporary beside it, and the export folder's manifest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "core/keyed_hash.hpp"

namespace attn::io::detail {

// A running keyed hash of bytes as they are written (BLAKE2b keyed with the user's
// export key, io/state_dir.hpp): what the manifest records, so the next export can tell
// that a file is still exactly the one attn wrote. A stranger who can write a manifest
// line cannot compute the hash of a file without the key, so a forged line vouches
// for nothing and the file it names is kept.
class content_hash {
public:
    content_hash();
    void add(const void* data, std::size_t bytes);
    std::string value() const;  // 32 lowercase hex digits

private:
    keyed_stream stream_;
};

// What the manifest says about one file attn wrote: its size and hash. `recorded`
// is false for a bare name (a manifest of an older attn): such an entry vouches for nothing.
struct manifest_entry {
    std::uint64_t size = 0;
    std::string hash;  // content_hash's 32 hex digits
    bool recorded = false;
};
using manifest = std::map<std::string, manifest_entry>;

// Refuses this run's inputs, devices, FIFOs, sockets, symlinks and (unless existing_ok)
// an existing file; throws write_error with the reason.
void check_target(const std::string& path, bool existing_ok);
// Re-checks `target` (as check_target) and renames `temp` over it: the one rename.
void move_into_place(const std::string& temp, const std::string& target, bool existing_ok);
// A fresh temporary name in the target's folder, so the final rename stays on one filesystem.
std::string temp_name_beside(const std::string& target);
// The entries of DIR/.attn-manifest; *found says whether the manifest exists.
manifest read_manifest(const std::string& dir, bool* found);
std::string manifest_text(const manifest& entries);
// True when `path` is a regular file whose size and content hash are the entry's:
// the file attn wrote, untouched since. Reads the file (only when the size matches).
bool vouched(const std::string& path, const manifest_entry& entry);
// A file name with no folder part, not "." or "..", and not attn's own (.attn*).
bool plain_name(const std::string& name);
bool dir_is_empty(const std::string& dir);

}  // namespace attn::io::detail
