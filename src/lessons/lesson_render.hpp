// lessons/lesson_render.hpp — turning a loaded lesson into text, step by step.
// The runner never reads the terminal itself: the CLI passes a callback that
// pauses (or not), so the same code writes goldens and talks to students.
// The show kinds themselves live in show_*.cpp (registry: show_kinds.hpp).
#pragma once

#include <functional>
#include <ostream>
#include <set>
#include <string>

#include "lessons/lesson.hpp"
#include "trace/style.hpp"

namespace attn::lessons {

struct render_options {
    trace::style style;
    int first_step = 1;  // --step K: start at step K (1-based)
    // Called between steps with (step just shown, total); return false to stop.
    std::function<bool(int, int)> between_steps;
};

// Writes the lesson's header, its steps from first_step on, and its questions.
// Throws std::invalid_argument when first_step is outside 1..steps.
void render_lesson(const lesson& l, std::ostream& out, const render_options& options);

// The pieces render_lesson writes, for the step viewer: the header (title and
// sources), the intro, step k (1-based; throws std::invalid_argument naming the
// range otherwise) and the closing questions.
std::string render_lesson_header(const lesson& l, const trace::style& st);
std::string render_intro(const lesson& l, const trace::style& st);
std::string render_step(const lesson& l, int k, const trace::style& st);
std::string render_questions(const lesson& l, const trace::style& st);

// One show item as text. Throws lesson_error (with the item's file:line:col) when
// the item names a run, stage, matrix or token that does not exist.
std::string render_show(const lesson& l, const show_item& item, const trace::style& st);

// Every show item checked (unknown kind, unknown or missing keys, with the closest
// known key, then the kind's own check: references, stages, ranges), drawing
// nothing; the loader runs it, so a lesson that loads never fails mid-way and
// `lesson check` needs no render. The problems found, empty when the lesson is
// sound. Items naming something in `broken` (already reported) are skipped.
std::vector<diagnostic> check_show_items(const lesson& l, const std::set<std::string>& broken = {});

// The per-token trace of one query of a run (the primary run when run is empty);
// `token` is a query token or its 0-based index. Throws std::invalid_argument
// naming the tokens that exist.
std::string render_token_trace(const lesson& l, const std::string& token, const std::string& run,
                               const trace::style& st);

// Every problem of a lesson file: TOML syntax, the loader's checks and the show
// items' checks, in file order. Empty when the lesson runs.
std::vector<diagnostic> check_lesson_file(const std::string& path);

}  // namespace attn::lessons
