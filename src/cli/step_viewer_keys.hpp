// cli/step_viewer_keys.hpp — the terminal side of the step viewer: raw mode around
// one key read (restored on every way out: return, exit, SIGINT, SIGTERM, SIGHUP),
// the keys a student presses read as commands (arrows and Page keys decoded from
// their escape sequences), the window size, and $PAGER for `--pager`.
#pragma once

#include <cstddef>
#include <string>

namespace attn::cli::viewer {

enum class action {
    next,         // Enter or n: the next page, from anywhere in the page
    more,         // Space, PgDn, f: a screenful down (the next page at the bottom)
    line_down,    // ↓ or j
    line_up,      // ↑ or k
    page_up,      // PgUp or u
    home,         // Home or g
    end,          // End or G
    back,         // p or b: the previous page
    jump,         // a number, then Enter
    help,         // ?
    answer,       // a
    quit,         // q, Ctrl-D, end of input
    redraw,       // the terminal changed size
};

struct command {
    action what;
    int step = 0;  // for jump
};

// Signal handlers that restore the terminal, and SIGWINCH noted for redraws.
void install_restorers();

// Prints the prompt once raw mode is on, then reads one command.
command read_command(const std::string& prompt);

// Rows of the terminal (24 when it cannot be asked).
std::size_t screen_rows();

// The text through $PAGER (default `less -FRX`); false when there is no pager or
// it failed (not found, exit status other than 0), so the caller prints instead.
bool through_pager(const std::string& text);

}  // namespace attn::cli::viewer
