// tests/support/test_paths.hpp — where the tests find the source tree and the attn binary.
//
// Every test TU gets this header through `-include` (tests/CMakeLists.txt). The paths are
// absolute and differ per checkout, so they live in one generated TU
// (build/tests/test_paths.cpp) instead of -D defines on every test object: with the defines,
// ccache could not share a single test object between two checkouts of the repository.
#pragma once

namespace attn_test {
extern const char* const source_dir;  // the repository's root
extern const char* const attn_bin;    // the attn binary under test
}  // namespace attn_test

#define ATTN_SOURCE_DIR (::attn_test::source_dir)
#define ATTN_BIN (::attn_test::attn_bin)
