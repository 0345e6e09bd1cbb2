// io/csv_read.cpp — see csv_read.hpp.
#include "io/csv_read.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>

namespace attn::io {

namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

}  // namespace

nd_array read_csv(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(source_pos{path, 0, 0}, "cannot open the CSV file (does it exist?)");
    nd_array out;
    out.origin = path;
    std::size_t cols = 0, rows = 0;
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        const std::string t = trim(line);
        if (t.empty() || t[0] == '#') continue;
        std::size_t start = 0, n = 0;
        while (true) {
            const auto comma = line.find(',', start);
            const std::string cell = trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
            const int col = static_cast<int>(start + 1 + line.substr(start).find_first_not_of(" \t"));
            errno = 0;
            char* end = nullptr;
            const double v = cell.empty() ? 0.0 : std::strtod(cell.c_str(), &end);
            if (cell.empty() || *end != '\0' || errno == ERANGE)
                throw input_error(source_pos{path, line_no, cell.empty() ? static_cast<int>(start + 1) : col},
                                  "expected a number, found '" + cell + "'");
            out.data.push_back(v);
            ++n;
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        if (rows == 0) cols = n;
        else if (n != cols)
            throw input_error(source_pos{path, line_no, 1}, "expected " + std::to_string(cols) +
                                                                " numbers like the first row, found " + std::to_string(n));
        ++rows;
    }
    if (rows == 0) throw input_error(source_pos{path, 0, 0}, "the CSV file holds no rows of numbers");
    out.shape = {rows, cols};
    return out;
}

}  // namespace attn::io
