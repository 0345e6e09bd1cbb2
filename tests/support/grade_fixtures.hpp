// tests/support/grade_fixtures.hpp — what the tests that run `attn` on the grading
// fixtures share: a fixture's path and the command line with the fixtures' course secret.
#pragma once

#include <string>

#include "support/golden.hpp"

namespace attn::testing {

// A file or folder of tests/fixtures/grade/ (its README says what each one is).
inline std::string fixture_file(const std::string& name) {
    return std::string(ATTN_SOURCE_DIR) + "/tests/fixtures/grade/" + name;
}

// `attn ARGS` as a shell command, with the fixtures' course secret in its environment.
inline std::string attn_cmd_with_secret(const std::string& args) {
    return "ATTN_COURSE_SECRET=attn-fixture-secret " + shell_quote(ATTN_BIN) + " " + args;
}

}  // namespace attn::testing
