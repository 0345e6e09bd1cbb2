// tests/support/lesson_exercises.hpp — every exercise of the repository's lessons
// (lessons/*.toml), loaded once per test process, for the grading tests.
#pragma once

#include <string>

#include "grade/exercise.hpp"

namespace attn::testing {

inline const grade::exercise_set& lessons_exercises() {
    static const grade::exercise_set set = grade::load_exercise_set(std::string(ATTN_SOURCE_DIR) + "/lessons");
    return set;
}

}  // namespace attn::testing
