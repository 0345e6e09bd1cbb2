// lessons/lesson_render.hpp — turning a loaded lesson into text, step by step.
// The runner never reads the terminal itself: the CLI passes a callback that
// pauses (or not), so the same code writes goldens and talks to students.
#pragma once

#include <functional>
#include <ostream>
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
void render_lesson(const lesson& l, std::ostream& out, const render_options& options);

// One show item as text. Throws lesson_error (with the item's file:line:col) when
// the item names a run, stage, matrix or token that does not exist.
std::string render_show(const lesson& l, const show_item& item, const trace::style& st);

// Every show item rendered once, so `lesson check` finds bad references; the
// problems found, empty when the lesson is sound.
std::vector<diagnostic> check_show_items(const lesson& l);

// The per-token trace of one query of a run (the primary run when run is empty);
// `token` is a query token or its 0-based index. Throws std::invalid_argument
// naming the tokens that exist.
std::string render_token_trace(const lesson& l, const std::string& token, const std::string& run,
                               const trace::style& st);

}  // namespace attn::lessons
