// cli/step_viewer.hpp — a lesson on a terminal, one page at a time. The pages:
// the intro (with the lesson's header), each step, then the recap and the
// questions (never skipped: `q` on the last step shows them first). A page taller
// than the screen scrolls inside the viewer (Space, PgDn, ↓, j down; PgUp, ↑, k,
// u up; Home/g, End/G), with a "more below" line saying which lines show; Enter
// or n shows the rest of the page first (the prompt says "more below"), then goes
// on to the next page, p or b goes back, a step
// number then Enter jumps, ? lists the keys, a answers the lesson's questions
// (cli/practice.hpp), q quits, a resize redraws at the new width. The prompt line
// is on the screen's last row whenever a key is awaited. With `--pager`, a tall
// page goes through $PAGER instead (default `less -FRX`); a pager that fails
// leaves the page printed as it is. Only used when stdin and stdout are both a
// terminal. The keys and the terminal: step_viewer_keys.hpp.
#pragma once

#include "cli/layout.hpp"
#include "lessons/lesson.hpp"

namespace attn::cli {

// first_step 0: from the intro (step 1 when the lesson has none); K: from step K
// (--step). The style is made from `layout` again after a resize (SIGWINCH), so the
// page is redrawn at the terminal's new width (unless --width fixed it).
void view_lesson(const lessons::lesson& l, const layout_options& layout, int first_step, bool use_pager);

}  // namespace attn::cli
