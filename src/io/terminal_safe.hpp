// io/terminal_safe.hpp — data from files never reaches a terminal (or a spreadsheet)
// as instructions. Every renderer passes file-borne text (token names, titles,
// student ids, answer strings, file names) through one of these before printing.
//
// terminal_safe escapes, as visible text:
//   C0 controls (0x00–0x1F, including newline and tab) and DEL  → \xNN (newline: \x0a)
//   ESC                                                       → \x1b
//   C1 controls U+0080–U+009F (UTF-8 encoded)                 → \u0080 .. \u009f
//   bidirectional overrides/isolates U+202A–U+202E, U+2066–9  → \u202e ...
//   bytes that are not valid UTF-8 (a lone 0x9B is CSI to some terminals) → \xNN
// Everything else, including all printable Unicode, passes unchanged.
#pragma once

#include <string>
#include <string_view>

namespace attn::io {

// For single-line fields: names, ids, titles, answer strings, file names.
std::string terminal_safe(std::string_view s);

// For prose that is meant to span lines (lesson text): keeps '\n' and '\t',
// escapes everything else terminal_safe does.
std::string terminal_safe_text(std::string_view s);

// A gradebook (CSV) text cell: a cell starting with = + - @ TAB or CR is prefixed
// with an apostrophe so spreadsheets read it as text, not a formula. Apply to text
// cells only (never to numbers, which may be negative).
std::string spreadsheet_safe(std::string_view cell);

// XML attribute and element text (JUnit reports): & < > " ' escaped, and the control
// characters XML 1.0 forbids even escaped (all below 0x20 but tab, LF, CR) as spaces.
std::string xml_safe(std::string_view s);

}  // namespace attn::io
