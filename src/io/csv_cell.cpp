// io/csv_cell.cpp — see csv_cell.hpp.
#include "io/csv_cell.hpp"

#include "io/terminal_safe.hpp"

namespace attn::io {

std::string csv_quoted(std::string_view field) {
    if (field.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(field);
    std::string out = "\"";
    for (char c : field) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string csv_text(std::string_view raw) { return spreadsheet_safe(terminal_safe(raw)); }

std::string csv_text_cell(std::string_view raw) { return csv_quoted(csv_text(raw)); }

}  // namespace attn::io
