// io/typed_line.cpp — a typed line as a value tree (see typed_line.hpp).
#include "io/typed_line.hpp"

#include <cstdlib>
#include <vector>

namespace attn::io {

namespace {

value_node typed(value_node::type kind) {
    value_node v;
    v.kind = kind;
    v.where.file = "your answer";
    return v;
}

value_node text(const std::string& s) {
    value_node v = typed(value_node::type::string);
    v.text = s;
    return v;
}

// "0.25" → a number; anything else ("cat", "d") stays text for the grader to judge.
value_node scalar(const std::string& token) {
    char* end = nullptr;
    const double x = std::strtod(token.c_str(), &end);
    if (token.empty() || end != token.c_str() + token.size()) return text(token);
    value_node v = typed(value_node::type::number);
    v.number = x;
    return v;
}

value_node array_of(std::vector<value_node> items) {
    value_node v = typed(value_node::type::array);
    v.items = std::move(items);
    return v;
}

// Sets the reason a line cannot be read; returns "nothing" for the caller to pass on.
std::nullopt_t refuse(std::string& error, const char* why) {
    error = why;
    return std::nullopt;
}

// Rows of tokens: ';' or a closing inner bracket ends a row; spaces and commas part tokens.
struct rows_read {
    std::vector<std::vector<std::string>> rows;
    bool bracketed = false, several_rows = false;
};

std::optional<rows_read> split_rows(const std::string& line, std::string& error) {
    rows_read r;
    r.rows.emplace_back();
    std::string token;
    int depth = 0;
    auto flush = [&] {
        if (!token.empty()) r.rows.back().push_back(token);
        token.clear();
    };
    auto end_row = [&] {
        flush();
        if (!r.rows.back().empty()) r.rows.emplace_back();
    };
    for (char c : line) {
        if (c == '[') {
            flush();
            r.bracketed = true;
            if (++depth > 2) return refuse(error, "at most two levels of brackets: [[row], [row]]");
            if (depth == 2) r.several_rows = true;
        } else if (c == ']') {
            if (--depth < 0) return refuse(error, "a ']' without its '['");
            if (depth == 1) end_row();
            else flush();
        } else if (c == ';') {
            if (depth > 1) return refuse(error, "';' inside brackets: write rows as 1 2; 3 4 or [[1, 2], [3, 4]]");
            r.several_rows = true;
            end_row();
        } else if (c == ',' || c == ' ' || c == '\t') {
            flush();
        } else {
            token += c;
        }
    }
    if (depth != 0) return refuse(error, "a '[' without its ']'");
    flush();
    if (r.rows.back().empty()) r.rows.pop_back();
    return r;
}

value_node numbers(const rows_read& r) {
    auto row_value = [](const std::vector<std::string>& row) {
        std::vector<value_node> items;
        for (const auto& t : row) items.push_back(scalar(t));
        return array_of(std::move(items));
    };
    if (r.several_rows) {
        std::vector<value_node> rows;
        for (const auto& row : r.rows) rows.push_back(row_value(row));
        return array_of(std::move(rows));
    }
    const std::vector<std::string> none;
    const auto& only = r.rows.empty() ? none : r.rows.front();
    if (only.size() == 1 && !r.bracketed) return scalar(only.front());
    return row_value(only);
}

// "2" → "b" when there are at least two choices; a letter or the text goes as typed.
value_node choice(const std::string& s, std::size_t n_choices) {
    char* end = nullptr;
    const long k = std::strtol(s.c_str(), &end, 10);
    if (!s.empty() && end == s.c_str() + s.size() && k >= 1 && static_cast<std::size_t>(k) <= n_choices && k <= 26)
        return text(std::string(1, static_cast<char>('a' + k - 1)));
    return text(s);
}

}  // namespace

std::optional<value_node> typed_text(const std::string& s, std::size_t, std::string&) { return text(s); }

std::optional<value_node> typed_choice(const std::string& s, std::size_t n_choices, std::string&) {
    return choice(s, n_choices);
}

// "a c", "a, c", "1 3": every pick.
std::optional<value_node> typed_picks(const std::string& s, std::size_t n_choices, std::string& error) {
    auto r = split_rows(s, error);
    if (!r) return std::nullopt;
    std::vector<value_node> picks;
    for (const auto& row : r->rows)
        for (const auto& t : row) picks.push_back(choice(t, n_choices));
    return array_of(std::move(picks));
}

std::optional<value_node> typed_shape(const std::string& s, std::size_t, std::string& error) {
    if (s.empty() || s.front() != '[') return text(s);  // "5 × 4", "B × n × d"
    auto r = split_rows(s, error);
    if (!r) return std::nullopt;
    if (r->several_rows) return refuse(error, "a shape is one list: [5, 4]");
    return numbers(*r).kind == value_node::type::array ? numbers(*r) : array_of({numbers(*r)});
}

std::optional<value_node> typed_numbers(const std::string& s, std::size_t, std::string& error) {
    auto r = split_rows(s, error);
    if (!r) return std::nullopt;
    return numbers(*r);
}

}  // namespace attn::io
