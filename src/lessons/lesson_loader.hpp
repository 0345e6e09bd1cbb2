// lessons/lesson_loader.hpp — reading and checking lesson files, finding lessons.
#pragma once

#include <string>
#include <vector>

#include "lessons/lesson.hpp"

namespace attn::lessons {

// Parses and checks one lesson file and computes its runs. Throws lesson_error
// listing every problem with file:line:col.
lesson load_lesson(const std::string& path);

// Same, from text already in memory (tests, `lesson check` of stdin).
lesson load_lesson_text(const std::string& text, const std::string& display_path);

// The folder holding the lessons: $ATTN_LESSONS_DIR, else the source tree's lessons/.
std::string lessons_dir();

struct lesson_entry {
    int number;
    std::string path;
    std::string title;
    std::string summary;
};

// Every lessons/NN-*.toml, sorted by number (reads only the header keys).
std::vector<lesson_entry> list_lessons(const std::string& dir);

// The file of lesson N; throws std::invalid_argument naming the lessons that exist.
std::string find_lesson(const std::string& dir, int number);

}  // namespace attn::lessons
