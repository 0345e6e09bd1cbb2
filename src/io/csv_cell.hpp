// io/csv_cell.hpp — one CSV cell as attn writes it (RFC 4180): quoted when it holds a
// comma, a quote or a line break, with quotes doubled. The gradebook and the review
// sheet also make their text cells safe (no control characters, never a formula).
#pragma once

#include <string>
#include <string_view>

namespace attn::io {

// The field as it stands, quoted only when it must be.
std::string csv_quoted(std::string_view field);

// A text cell from a submission or a student id: terminal_safe (no control characters:
// the CSV may be printed with `-`), then spreadsheet_safe (= + - @ TAB CR start no
// formula), then quoted. csv_text is the cell before quoting: what a CSV reader reads back.
std::string csv_text_cell(std::string_view raw);
std::string csv_text(std::string_view raw);

}  // namespace attn::io
