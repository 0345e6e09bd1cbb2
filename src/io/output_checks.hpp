// io/output_checks.hpp — private to the output writer (output_writer.cpp defines these,
// output_staged.cpp uses them too): the checks every target passes before anything is
// written, the temporary beside it, and the export folder's manifest.
#pragma once

#include <set>
#include <string>

namespace attn::io::detail {

// Refuses this run's inputs, devices, FIFOs, sockets, symlinks and (unless existing_ok)
// an existing file; throws write_error with the reason.
void check_target(const std::string& path, bool existing_ok);
// A fresh temporary name in the target's folder, so the final rename stays on one filesystem.
std::string temp_name_beside(const std::string& target);
// The names listed in DIR/.attn-manifest; *found says whether the manifest exists.
std::set<std::string> read_manifest(const std::string& dir, bool* found);
std::string manifest_text(const std::set<std::string>& names);
// A file name with no folder part, not "." or "..", and not attn's own (.attn*).
bool plain_name(const std::string& name);
bool dir_is_empty(const std::string& dir);

}  // namespace attn::io::detail
