// io/csv_read.cpp — see csv_read.hpp. One pass over the text: each line is cut at
// commas without copying the rest of the line, so a 1.6 MB line costs what its
// bytes cost.
#include "io/csv_read.hpp"

#include <algorithm>
#include <cctype>

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "io/input_read.hpp"
#include "io/size_budget.hpp"
#include "io/terminal_safe.hpp"

namespace attn::io {

namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string shown_cell(std::string_view cell) {
    constexpr std::size_t longest = 40;
    if (cell.size() <= longest) return terminal_safe(cell);
    return terminal_safe(cell.substr(0, longest)) + "…";
}

// Only plain decimal numbers: strtod would also take nan, inf and hex floats.
bool decimal_chars(std::string_view cell) {
    for (char c : cell)
        if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E')) return false;
    return true;
}

// "nan", "-inf", "Infinity", ...: a non-finite value, named in words (attn never prints
// the letters nan, even quoting a cell).
bool non_finite_word(std::string_view cell) {
    std::string w;
    for (char c : cell)
        if (c != '+' && c != '-') w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return w == "nan" || w == "inf" || w == "infinity";
}

double parse_cell(std::string_view cell, const source_pos& at) {
    if (cell.empty()) throw input_error(at, "expected a number, found ''");
    const std::string copy(cell);  // strtod needs a terminated string; the cell only
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(copy.c_str(), &end);
    const bool whole = decimal_chars(cell) && end == copy.c_str() + copy.size();
    if (!whole && non_finite_word(cell))
        throw input_error(at, "expected a finite number, found a non-finite value (not-a-number or infinity)");
    if (!whole) throw input_error(at, "expected a number, found '" + shown_cell(cell) + "'");
    // ERANGE with a tiny result is underflow to a subnormal or zero: the number is kept.
    if (errno == ERANGE && std::isinf(v))
        throw input_error(at, "the number '" + shown_cell(cell) + "' is beyond the range of a double (±1.8e308)");
    return v;
}

struct line_cursor {
    std::string_view text;
    std::size_t pos = 0;
    int line_no = 0;
    bool next(std::string_view* line) {
        if (pos >= text.size()) return false;
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        *line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        return true;
    }
};

}  // namespace

nd_array parse_csv(const std::string& raw, const std::string& path) {
    std::string_view text(raw);
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
    nd_array out;
    out.origin = path;
    std::size_t cols = 0, rows = 0;
    line_cursor cur{text};
    std::string_view line;
    while (cur.next(&line)) {
        if (const auto nul = line.find('\0'); nul != std::string_view::npos)
            throw input_error(source_pos{path, cur.line_no, static_cast<int>(nul + 1)},
                              "a NUL byte; expected comma-separated numbers (is this a text file?)");
        std::size_t b = 0;
        while (b < line.size() && blank(line[b])) ++b;
        if (b == line.size() || line[b] == '#') continue;
        std::size_t start = 0, n = 0;
        while (true) {
            std::size_t comma = line.find(',', start);
            const std::size_t stop = comma == std::string_view::npos ? line.size() : comma;
            std::size_t cb = start, ce = stop;
            while (cb < ce && blank(line[cb])) ++cb;
            while (ce > cb && blank(line[ce - 1])) --ce;
            const source_pos at{path, cur.line_no, static_cast<int>(cb + 1)};
            out.data.push_back(parse_cell(line.substr(cb, ce - cb), at));
            if (out.data.size() > max_elements() - std::min(max_elements(), charged_elements()))
                charge_budget(out.data.size(), "the CSV file", source_pos{path, 0, 0});  // refused: over the run's budget
            ++n;
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
        if (rows == 0) cols = n;
        else if (n != cols)
            throw input_error(source_pos{path, cur.line_no, 1},
                              "expected " + std::to_string(cols) + " numbers like the first row, found " + std::to_string(n));
        ++rows;
    }
    if (rows == 0) throw input_error(source_pos{path, 0, 0}, "the CSV file holds no rows of numbers");
    out.shape = {rows, cols};
    charge_budget(out.data.size(), "the CSV file", source_pos{path, 0, 0});
    return out;
}

nd_array read_csv(const std::string& path) {
    input_limits limits;
    limits.what = "CSV file";
    return parse_csv(read_input_file(path, limits), path);
}

}  // namespace attn::io
