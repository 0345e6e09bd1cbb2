// tests/support/golden.hpp — byte-for-byte golden comparison, ApprovalTests style:
// on mismatch write <name>.received.txt beside the golden, give a unified diff
// and the exact command that would bless the change.
#pragma once

#include <string>

namespace attn::testing {

struct golden_result {
    bool matches = false;
    std::string report;  // the diff and the bless command, empty when it matches
};

// Compares `actual` with the file at golden_path. When ATTN_BLESS=1 is set (and CI
// is not), rewrites the golden instead and reports a match.
golden_result check_golden(const std::string& golden_path, const std::string& actual);

// Runs a command line, returns its stdout; exit_code receives the exit status.
std::string run_command(const std::string& command, int* exit_code);

std::string read_file(const std::string& path);

// A scratch path under the temp folder that is private to this test process, so
// tests running in parallel (ctest -j, several checkouts) never share a file.
// The folder is created; `name` may be a file or a sub-folder name.
std::string scratch_path(const std::string& name);

// Quotes one argument for /bin/sh.
std::string shell_quote(const std::string& arg);

}  // namespace attn::testing
