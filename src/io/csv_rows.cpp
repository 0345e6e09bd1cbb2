// io/csv_rows.cpp — see csv_rows.hpp. One pass over the bytes; text_position turns each
// cell's start into line:col as the scan moves forward.
#include "io/csv_rows.hpp"

#include <cctype>

#include "io/terminal_safe.hpp"
#include "io/text_position.hpp"

namespace attn::io {

namespace {

struct csv_scan {
    const std::string& text;
    text_position place;
    std::size_t i = 0;

    [[noreturn]] void fail(const std::string& what) { throw input_error("syntax", place.to(i), what); }
    bool at(char c) const { return i < text.size() && text[i] == c; }

    // A "quoted" cell from its opening quote; "" inside is one quote.
    std::string quoted() {
        std::string out;
        for (++i;; ++i) {
            if (i >= text.size()) fail("a quoted cell is not closed (expected '\"' before the end of the file)");
            if (text[i] != '"') {
                out += text[i];
                continue;
            }
            if (i + 1 < text.size() && text[i + 1] == '"') {
                out += '"';
                ++i;
                continue;
            }
            ++i;  // the closing quote
            if (i < text.size() && !at(',') && !at('\n') && !at('\r'))
                fail("expected ',' or the end of the line after a quoted cell, found '" + terminal_safe(text.substr(i, 1)) + "'");
            return out;
        }
    }
};

}  // namespace

std::vector<std::vector<csv_field>> read_csv_rows(const std::string& text, const std::string& file) {
    csv_scan s{text, text_position(file, text)};
    s.i = s.place.at = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // the mark takes no column
    std::vector<std::vector<csv_field>> rows;
    std::vector<csv_field> row;
    while (s.i < text.size()) {
        csv_field c{"", s.place.to(s.i)};
        if (s.at('"')) {
            c.text = s.quoted();
        } else {
            const std::size_t end = text.find_first_of(",\r\n", s.i);
            c.text = text.substr(s.i, end == std::string::npos ? std::string::npos : end - s.i);
            s.i = end == std::string::npos ? text.size() : end;
        }
        row.push_back(std::move(c));
        if (s.at(',')) {
            ++s.i;
            if (s.i >= text.size()) row.push_back({"", s.place.to(s.i)});
            continue;
        }
        if (s.at('\r')) ++s.i;
        if (s.at('\n')) ++s.i;
        if (!(row.size() == 1 && row[0].text.empty())) rows.push_back(std::move(row));  // blank lines
        row.clear();
    }
    if (!row.empty()) rows.push_back(std::move(row));
    return rows;
}

csv_table read_csv_table(const std::string& text, const std::string& file) {
    csv_table t{read_csv_rows(text, file), {}};
    if (!t.rows.empty())
        for (std::size_t k = 0; k < t.rows[0].size(); ++k) t.columns[t.rows[0][k].text] = k;
    return t;
}

const csv_field* csv_table::cell(std::size_t n, const std::string& column) const {
    const auto it = columns.find(column);
    return it == columns.end() || it->second >= rows[n].size() ? nullptr : &rows[n][it->second];
}

bool plain_decimal(const std::string& s) {
    std::size_t i = s.find_first_not_of(" \t");
    const std::size_t end = s.find_last_not_of(" \t") + 1;
    if (i == std::string::npos) return false;
    if (s[i] == '+' || s[i] == '-') ++i;
    std::size_t digits = 0;
    for (; i < end && std::isdigit(static_cast<unsigned char>(s[i])); ++i) ++digits;
    if (i < end && s[i] == '.')
        for (++i; i < end && std::isdigit(static_cast<unsigned char>(s[i])); ++i) ++digits;
    if (digits == 0) return false;
    if (i < end && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < end && (s[i] == '+' || s[i] == '-')) ++i;
        std::size_t exp_digits = 0;
        for (; i < end && std::isdigit(static_cast<unsigned char>(s[i])); ++i) ++exp_digits;
        if (exp_digits == 0) return false;
    }
    return i == end;
}

}  // namespace attn::io
