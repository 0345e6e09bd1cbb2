// tests/support/lesson_files.hpp — the repository's lessons (lessons/*.toml), loaded by
// file name or by number, for the tests that check what a lesson says and computes.
#pragma once

#include <string>

#include "lessons/lesson_loader.hpp"

namespace attn::testing {

// lessons/NAME, e.g. lesson_file("01-self-attention.toml").
inline lessons::lesson lesson_file(const std::string& name) {
    return lessons::load_lesson(std::string(ATTN_SOURCE_DIR) + "/lessons/" + name);
}

// The lesson numbered n.
inline lessons::lesson lesson_no(int n) {
    return lessons::load_lesson(lessons::find_lesson(std::string(ATTN_SOURCE_DIR) + "/lessons", n));
}

}  // namespace attn::testing
