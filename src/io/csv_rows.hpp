// io/csv_rows.hpp — reads a text CSV (RFC 4180) into rows of cells, each with its
// file:line:col: fields separated by commas, rows by LF or CRLF; "quoted" fields may hold
// commas, quotes ("") and line breaks. A UTF-8 byte order mark is skipped, blank lines
// are no rows. The writer's side is io/csv_cell.hpp; numeric CSV is io/csv_read.hpp.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "io/input_error.hpp"

namespace attn::io {

struct csv_field {
    std::string text;
    source_pos where;
};

// Throws input_error ("syntax") at the place of a quoted cell not closed, or of text
// after a closing quote. Linear in the text's size.
std::vector<std::vector<csv_field>> read_csv_rows(const std::string& text, const std::string& file);

// A CSV whose first row names its columns, so a spreadsheet may reorder them (extra
// columns are ignored; a name given twice is its last column). Throws as read_csv_rows.
struct csv_table {
    std::vector<std::vector<csv_field>> rows;    // rows[0] is the header (none: an empty file)
    std::map<std::string, std::size_t> columns;  // header text → its index
    // Row n's cell in the named column; null when the header has no such column or the row is shorter.
    const csv_field* cell(std::size_t n, const std::string& column) const;
};
csv_table read_csv_table(const std::string& text, const std::string& file);

// Whether a cell is a number in plain decimal notation (2, 1.5, .5, 2e-1, spaces around):
// strtod also takes 0x1, 1p3, inf and nan, which no teacher means and a spreadsheet never writes.
bool plain_decimal(const std::string& s);

}  // namespace attn::io
