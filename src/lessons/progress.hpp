// lessons/progress.hpp — what a student has answered in the lessons: one state per
// question (exercise id), kept in $XDG_STATE_HOME/attn/progress.toml (default
// ~/.local/state/attn/progress.toml). Written atomically through io::output_writer,
// merged under a lock with what other attn runs saved meanwhile;
// a file that cannot be read is reported and ignored, never fatal.
//
//   # attn progress: ...
//   [questions]
//   "01-scale" = "right"      answered right at least once (stays right)
//   "01-self-cat" = "tried"   answered, not yet right
#pragma once

#include <map>
#include <string>

namespace attn::lessons {

enum class question_state { untried, tried, right };

struct progress {
    std::map<std::string, question_state> questions;  // exercise id → state

    question_state of(const std::string& id) const;
    // A graded try: right, or tried (a question once right stays right).
    void record(const std::string& id, bool right);
};

struct progress_load {
    progress p;
    std::string problem;  // why the file was ignored ("" when it was read, or is simply not there yet)
};

// $XDG_STATE_HOME/attn/progress.toml (an absolute XDG_STATE_HOME only, as the XDG spec
// says), else $HOME/.local/state/attn/progress.toml, else "" (nowhere to keep it).
std::string progress_path();

// A missing file is an empty progress; a file that is not a progress file gives an
// empty progress and the reason in `problem`.
progress_load load_progress(const std::string& path);

// The file's text (deterministic: ids sorted).
std::string progress_text(const progress& p);

// Each question of `from` raised in `into` to the higher state (right > tried > untried).
void merge_progress(progress& into, const progress& from);

// Saves `p` merged with what the file holds now, under an exclusive lock on PATH.lock
// (folders created, temp + rename), so viewers and `exercise check` runs in other
// terminals never erase each other's answers. Returns the merged progress. Throws
// io::write_error when it cannot be written.
progress save_progress(const std::string& path, const progress& p);

}  // namespace attn::lessons
