// lessons/lesson_loader.hpp — reading and checking lesson files, finding lessons.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lessons/lesson.hpp"

namespace attn::lessons {

// A lesson file's text, read by the one input reader (regular files only, size and
// TOML nesting limits). Throws lesson_error with the file and what was wrong.
std::string read_lesson_file(const std::string& path);

// Parses and checks one lesson file and computes its runs. Throws lesson_error
// listing every problem with file:line:col.
lesson load_lesson(const std::string& path);

// Same, from text already in memory (tests, `lesson check` of stdin).
lesson load_lesson_text(const std::string& text, const std::string& display_path);

// A lesson read as far as it goes, with every problem found on the way: what
// `attn lesson check` needs to report everything at once. `lesson` holds the parts
// that could be computed; `broken` names matrices and runs that could not.
struct lesson_draft {
    lesson content;
    std::vector<diagnostic> problems;  // in file order
    std::set<std::string> broken;
    bool parsed = false;               // false: TOML syntax error, nothing else was read
};
lesson_draft load_lesson_draft(const std::string& text, const std::string& display_path);

// The keys a lesson file may have at its top level.
const std::vector<std::string>& top_level_keys();

// Where lessons come from (lesson_files.cpp). The lessons built into attn have the
// paths "<built-in>/NN-name.toml"; every function below that takes a folder or a path
// accepts them as well as real ones.
inline constexpr const char* built_in_lessons = "<built-in>";

// The folder holding the lessons: the one given to set_lessons_dir (`--lessons DIR`),
// else $ATTN_LESSONS_DIR, else built_in_lessons.
std::string lessons_dir();
void set_lessons_dir(const std::string& dir);

// The text of a lesson file, from disk or from the built-in copy; nullopt when it
// cannot be read.
std::optional<std::string> read_lesson_text(const std::string& path);

struct lesson_entry {
    int number;
    std::string path;
    std::string title;
    std::string summary;
    std::vector<std::string> exercise_ids;  // its questions attn grades (not `open` ones), in file order (for progress)
};

// Every NN-*.toml of the folder, sorted by number (reads only the header keys).
std::vector<lesson_entry> list_lessons(const std::string& dir);
// Their paths alone, sorted by number, by file name: nothing read or parsed (for a
// caller that loads each lesson once anyway, as the grader does).
std::vector<std::string> lesson_paths(const std::string& dir);

// The file of lesson N; throws std::invalid_argument naming the lessons that exist.
std::string find_lesson(const std::string& dir, int number);

}  // namespace attn::lessons
