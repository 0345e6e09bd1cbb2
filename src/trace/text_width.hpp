// trace/text_width.hpp — terminal column width of UTF-8 text, so that tables stay
// aligned when labels are Hangul (고양이가) or other wide characters, and the
// fitting of text to a width: prose re-wrapped, long lines broken at spaces
// (never inside a number), and the width of the terminal itself.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn::trace {

// Columns the text occupies in a terminal: East Asian wide/fullwidth code points
// count 2, combining marks 0, ANSI colour sequences (ESC [ … m) 0, everything
// else 1. Invalid UTF-8 bytes count 1 each.
std::size_t display_width(const std::string& utf8);

// `text` cut to at most `max_cols` columns, ending in "…" when cut. Walks only the
// part it keeps: a label of a megabyte costs what its first columns cost.
std::string shorten(const std::string& text, std::size_t max_cols);

std::string pad_right(const std::string& text, std::size_t width);
std::string pad_left(const std::string& text, std::size_t width);

// The width output should fit: `requested` when non-zero (--width N), else the
// terminal's (TIOCGWINSZ on stdout), else $COLUMNS, else 80. Never below 20.
std::size_t output_width(std::size_t requested = 0);

// One line broken at spaces so that no piece is wider than `width`; the pieces
// after the first are indented two more than the line (after a bullet "• ",
// "- ", "1. " when it starts with one; at column 0 when the line is). A word wider than the room left is cut only
// as a last resort. Returns the pieces joined with '\n' (no trailing newline).
std::string fit_line(const std::string& line, std::size_t width);

// fit_line for every line of `text`; line ends are kept.
std::string fit_lines(const std::string& text, std::size_t width);

// Prose as teachers write it: paragraphs (separated by blank lines) whose lines
// all fit are kept exactly as written; a paragraph with a line that does not fit
// is re-wrapped as a whole, except indented lines (formulas, lists), which are
// broken one by one with fit_line.
std::string wrap_prose(const std::string& text, std::size_t width);

// Words (split at single spaces, never cut) filled into lines of at most `width`
// columns, each line starting with `indent` and ending in '\n'; "" for no words.
std::string wrap_words(const std::string& text, const std::string& indent, std::size_t width = 78);

// A long list shown by its ends: the first `head`, "…", the last `tail` items,
// when there are more than head + tail + 1 of them and `full` is false.
std::vector<std::string> elide_items(const std::vector<std::string>& items, std::size_t head, std::size_t tail,
                                     bool full);

}  // namespace attn::trace
