// io/shown_text.hpp — text from files as reports show it: capped, with a count of what
// was cut (a 469 KB answer file of unknown exercise ids gave a 1.6 MB results.json, and
// a 360 KB cell breaks spreadsheets); file names relative to the folder they were found
// in and always valid text (bytes that are not UTF-8 become \xNN, so a CSV or a terminal
// stays valid whatever the file system holds); a spreadsheet cell read back.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn::io {

// text itself when short enough, else its first bytes (cut at a UTF-8 boundary) and
// " … [N more bytes cut]".
std::string capped_text(const std::string& text, std::size_t max_bytes);

// The first line of text, cut at a UTF-8 boundary with "…" past max_bytes (a title).
std::string first_line(const std::string& text, std::size_t max_bytes);

// Each line capped to max_bytes, at most max_lines of them, then one line saying how
// many more there were ("… and 1234 more notes (cut)").
void cap_lines(std::vector<std::string>& lines, std::size_t max_lines, std::size_t max_bytes, const std::string& what);

// s itself when it is valid UTF-8, else every byte ≥ 0x80 as \xNN.
std::string printable_name(const std::string& s);

// path relative to dir, printable (path itself when it is not inside dir).
std::string shown_relative(const std::string& path, const std::string& dir);

// Every "dir/" in text removed, or only a leading one (a path), dir's trailing slashes
// ignored: the files inside dir that a message names, named relative to it.
void strip_folder(std::string& text, const std::string& dir, bool leading_only = false);

// A cell io::spreadsheet_safe wrote ('=x), read back as it was written (=x).
std::string spreadsheet_text(const std::string& cell);

}  // namespace attn::io
