// grade/submission.hpp — reading a student's answer file(s) into answers by exercise id.
//
// An answer file is TOML or JSON with the same layout:
//   student = "alice"                       (optional; --student or the class folder win)
//   [04-cross-weights]                      one table per exercise id
//   weights = [[0.1, 0.2, ...], ...]        one key per part
//   ["01-scale"] answer = 2.0  or  "01-scale" = 2.0   (a single-part exercise)
// A student's submission is one file or a folder of such files. The reader refuses,
// with a reason a teacher can act on, what it cannot read: empty, too large, not
// UTF-8, a syntax error (file:line:col; "this looks like TOML" for TOML in a .json file
// and "this looks like JSON" the other way round: io/value_tree), a layout it does not
// understand, an exercise answered twice in one file (both places).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/value_tree.hpp"
#include "lessons/lesson.hpp"

namespace attn::grade {

// Why a submission could not be read. `reason` is a short stable word for gradebooks
// (empty, too-large, not-utf8, syntax, layout, duplicate, unreadable, no-answers); what() is the
// full message with file:line:col where there is one.
struct submission_error : error {
    submission_error(std::string reason_word, io::source_pos pos, const std::string& message)
        : error(error::as_written{}, reason_word, pos, message) {}
};

struct submission {
    std::string student;        // from a `student` key, "" if none
    io::source_pos student_where;
    std::vector<std::string> files;
    std::vector<std::pair<std::string, io::value_node>> answers;  // exercise id → table of parts or one value
    std::vector<lessons::diagnostic> notes;  // things read but not understood (ignored keys, ...)

    const io::value_node* find(const std::string& exercise_id) const;
};

struct read_limits {
    std::size_t max_bytes = 1u << 20;  // per submission; a 1 MiB answer file is not an answer file
    std::size_t max_files = 32;        // per student folder
};

// Text already in memory; `json` picks the format.
submission read_submission_text(const std::string& text, const std::string& display_path, bool json,
                                const read_limits& limits = {});
// A file (format from the extension, else from its first character) or a folder: every
// *.toml and *.json in it (and a few folders down), merged; hidden files and other files
// are ignored (named in notes), symbolic links are refused, never followed.
submission read_submission_path(const std::string& path, const read_limits& limits = {});

// Adds another file's answers: the parts of an exercise answered in both files are
// merged; a part answered twice keeps the first answer and leaves a note.
void merge_submission(submission& into, submission&& from);

}  // namespace attn::grade
