// cli/step_viewer.hpp — a lesson on a terminal, one step at a time: Enter,
// Space or n goes on, p or b goes back, a step number then Enter jumps, q quits
// at once, ? lists the keys. Keys are read in raw mode (termios), restored on
// every way out: return, exit, SIGINT, SIGTERM, SIGHUP. A step taller than the
// screen goes through $PAGER (default `less -FRX`, as git does) unless
// use_pager is false. Only used when stdin and stdout are both a terminal.
#pragma once

#include "lessons/lesson.hpp"
#include "trace/style.hpp"

namespace attn::cli {

void view_lesson(const lessons::lesson& l, const trace::style& st, int first_step, bool use_pager);

}  // namespace attn::cli
