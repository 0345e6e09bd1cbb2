// grade/limits.hpp — every note, flag, message and sheet cell the grader writes is
// capped, and says what was cut: a 469 KB answer file of unknown exercise ids gave a
// 1.6 MB results.json, and a 360 KB review-sheet cell breaks spreadsheets.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn::grade {

constexpr std::size_t max_note_bytes = 400;       // one note or flag
constexpr std::size_t max_notes = 40;             // per report, then "… and N more notes"
constexpr std::size_t max_cell_bytes = 32000;     // a spreadsheet cell (Excel holds 32,767 characters)

// text itself when short enough, else its first bytes (cut at a UTF-8 boundary) and
// " … [N more bytes cut]".
std::string capped_text(const std::string& text, std::size_t max_bytes);

// Each line capped to max_bytes, at most max_lines of them, then one line saying how
// many more there were ("… and 1234 more notes").
void cap_lines(std::vector<std::string>& lines, std::size_t max_lines, std::size_t max_bytes, const std::string& what);

}  // namespace attn::grade
