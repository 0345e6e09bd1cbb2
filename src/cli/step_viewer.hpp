// cli/step_viewer.hpp — a lesson on a terminal, one step at a time: Enter,
// Space or n goes on, p or b goes back, a step number then Enter jumps, q quits
// at once, ? lists the keys, a answers the lesson's questions (cli/practice.hpp),
// a resize redraws the step at the new width. Keys are read in raw mode (termios), restored on
// every way out: return, exit, SIGINT, SIGTERM, SIGHUP. A step taller than the
// screen goes through $PAGER (default `less -FRX`, as git does) unless
// use_pager is false. Only used when stdin and stdout are both a terminal.
#pragma once

#include "cli/layout.hpp"
#include "lessons/lesson.hpp"

namespace attn::cli {

// The style is made from `layout` again after a resize (SIGWINCH), so the step is
// redrawn at the terminal's new width (unless --width fixed it).
void view_lesson(const lessons::lesson& l, const layout_options& layout, int first_step, bool use_pager);

}  // namespace attn::cli
