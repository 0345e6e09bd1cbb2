// trace/text_width.cpp — a small wcwidth for the ranges lessons actually use,
// and fitting text to a width (see text_width.hpp).
#include "trace/text_width.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include <sys/ioctl.h>
#include <unistd.h>

namespace attn::trace {

namespace {

// Decodes one code point at s[i]; advances i. Returns 0xFFFD on malformed input.
std::uint32_t next_code_point(const std::string& s, std::size_t& i) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    int len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
        ++i;
        return 0xFFFD;
    }
    std::uint32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
    for (int k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b >> 6) != 0x2) {
            ++i;
            return 0xFFFD;
        }
        cp = (cp << 6) | (b & 0x3F);
    }
    i += len;
    return cp;
}

bool is_combining(std::uint32_t cp) {
    return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x1AB0 && cp <= 0x1AFF) || (cp >= 0x20D0 && cp <= 0x20FF) ||
           (cp >= 0xFE20 && cp <= 0xFE2F) || cp == 0x200B || cp == 0x200D;
}

bool is_wide(std::uint32_t cp) {
    return (cp >= 0x1100 && cp <= 0x115F) ||   // Hangul Jamo
           (cp >= 0x2E80 && cp <= 0x303E) ||   // CJK radicals, punctuation
           (cp >= 0x3041 && cp <= 0x33FF) ||   // Kana, CJK symbols
           (cp >= 0x3400 && cp <= 0x4DBF) ||   // CJK ext A
           (cp >= 0x4E00 && cp <= 0x9FFF) ||   // CJK unified
           (cp >= 0xA960 && cp <= 0xA97F) ||   // Hangul Jamo ext A
           (cp >= 0xAC00 && cp <= 0xD7A3) ||   // Hangul syllables
           (cp >= 0xF900 && cp <= 0xFAFF) ||   // CJK compatibility
           (cp >= 0xFE30 && cp <= 0xFE4F) ||   // CJK compatibility forms
           (cp >= 0xFF00 && cp <= 0xFF60) ||   // fullwidth forms
           (cp >= 0xFFE0 && cp <= 0xFFE6) ||
           (cp >= 0x1F300 && cp <= 0x1F64F) ||  // emoji
           (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

// One unit of text at s[i] — a code point, or a whole colour sequence ESC [ … final
// byte — and its columns; advances i. Every width in this file is a sum of these, so
// measuring a prefix while walking costs nothing extra (text layout stays O(length)).
std::size_t next_unit_width(const std::string& s, std::size_t& i) {
    const std::uint32_t cp = next_code_point(s, i);
    if (cp == 0x1B) {  // a colour sequence takes no column
        if (i < s.size() && s[i] == '[') {
            ++i;
            while (i < s.size() && !(s[i] >= 0x40 && s[i] <= 0x7E)) ++i;
            if (i < s.size()) ++i;
        }
        return 0;
    }
    return is_combining(cp) ? 0 : is_wide(cp) ? 2 : 1;
}

}  // namespace

std::size_t display_width(const std::string& utf8) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < utf8.size();) width += next_unit_width(utf8, i);
    return width;
}

std::string shorten(const std::string& text, std::size_t max_cols) {
    if (text.size() <= max_cols) return text;  // a byte is at most one column... except wide ones:
    std::size_t i = 0, w = 0, keep = 0;
    while (i < text.size()) {
        std::size_t j = i;
        const std::size_t u = next_unit_width(text, j);
        if (w + u > max_cols) break;
        w += u;
        i = j;
        if (w + 1 <= max_cols) keep = i;  // room left for the "…"
    }
    if (i == text.size()) return text;
    return text.substr(0, keep) + "…";
}

std::string pad_right(const std::string& text, std::size_t width) {
    const std::size_t w = display_width(text);
    return w >= width ? text : text + std::string(width - w, ' ');
}

std::string pad_left(const std::string& text, std::size_t width) {
    const std::size_t w = display_width(text);
    return w >= width ? text : std::string(width - w, ' ') + text;
}

std::size_t output_width(std::size_t requested) {
    constexpr std::size_t smallest = 20;
    auto at_least = [](std::size_t w) { return w < smallest ? smallest : w; };
    if (requested) return at_least(requested);
    winsize ws{};
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return at_least(ws.ws_col);
    if (const char* c = std::getenv("COLUMNS"); c && *c) {
        char* end = nullptr;
        const long v = std::strtol(c, &end, 10);
        if (end && *end == '\0' && v > 0 && v < 100000) return at_least(static_cast<std::size_t>(v));
    }
    return 80;
}

namespace {

// Columns of the bullet a line starts with after its indent ("• ", "- ", "* ",
// "12. ", "3) "), or 0.
std::size_t bullet_width(const std::string& s, std::size_t from) {
    if (s.compare(from, 4, "• ") == 0) return 2;
    if (s.compare(from, 2, "- ") == 0 || s.compare(from, 2, "* ") == 0) return 2;
    std::size_t i = from;
    while (i < s.size() && i - from < 3 && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i > from && i + 1 < s.size() && (s[i] == '.' || s[i] == ')') && s[i + 1] == ' ') return i - from + 2;
    return 0;
}

// How much of word[from..] fits `room` columns (at least one unit): the end of
// that piece, its columns in *cols. Walks the piece once.
std::size_t cut_point(const std::string& word, std::size_t from, std::size_t room, std::size_t* cols) {
    std::size_t i = from, w = 0;
    while (i < word.size()) {
        std::size_t j = i;
        const std::size_t u = next_unit_width(word, j);
        if (w + u > room && i > from) break;
        w += u;
        i = j;
    }
    *cols = w;
    return i;
}

// A word that is an operator of an equation ("=", "×", "≈", …): the wrapper never
// breaks a line next to one, so "d_q = d_v = 4." stays on one line.
bool is_operator(const std::string& w) {
    static const char* const ops[] = {"=", "≈", "≠", "+", "−", "-", "×", "·", "/", "÷", "<", ">", "≤", "≥", "→", "⊙", "∈"};
    for (const char* op : ops)
        if (w == op) return true;
    return false;
}

// The end of the word that starts at `from`: the next space, except that a word
// opening a `command in backticks` runs to the word holding the closing backtick
// (a student copies the command from one line), and an equation runs across its
// operators ("a = b + c"), each when that fits in `room` columns.
std::size_t word_end(const std::string& s, std::size_t from, std::size_t room) {
    std::size_t e = from, ticks = 0;
    for (; e < s.size() && s[e] != ' '; ++e) ticks += s[e] == '`';
    if (ticks % 2 == 1) {
        const std::size_t close = s.find('`', e);
        if (close == std::string::npos) return e;
        std::size_t end = close;
        while (end < s.size() && s[end] != ' ') ++end;
        return display_width(s.substr(from, end - from)) <= room ? end : e;
    }
    // Glue the next word while this one or the next is an operator.
    std::string last = s.substr(from, e - from);
    while (e + 1 < s.size() && s[e] == ' ' && s[e + 1] != ' ') {
        std::size_t n = e + 1;
        while (n < s.size() && s[n] != ' ') ++n;
        const std::string next = s.substr(e + 1, n - e - 1);
        if (!is_operator(last) && !is_operator(next)) break;
        if (display_width(s.substr(from, n - from)) > room) break;
        e = n;
        last = next;
    }
    return e;
}

}  // namespace

std::string fit_line(const std::string& line, std::size_t width) {
    if (display_width(line) <= width) return line;
    std::size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') ++indent;
    std::size_t hang = indent + bullet_width(line, indent);
    if (hang == indent && indent > 0) hang = indent + 2;  // prose at column 0 continues at column 0
    if (hang * 2 > width) hang = 2;
    const std::string cont(hang, ' ');

    std::string out, cur = line.substr(0, indent);
    std::size_t cur_w = indent;
    bool cur_has_word = false;
    std::size_t i = indent;
    while (i < line.size()) {
        std::size_t sp = i;
        while (sp < line.size() && line[sp] == ' ') ++sp;
        const std::size_t e = sp < line.size() ? word_end(line, sp, width > hang ? width - hang : 1) : sp;
        const std::string spaces = line.substr(i, sp - i), word = line.substr(sp, e - sp);
        i = e;
        if (word.empty()) break;  // trailing spaces
        const std::size_t ww = display_width(word);
        if (cur_has_word && cur_w + spaces.size() + ww > width) {
            out += cur + "\n";
            cur = cont;
            cur_w = hang;
            cur_has_word = false;
        }
        if (cur_has_word) {
            cur += spaces;
            cur_w += spaces.size();
        }
        std::size_t from = 0, rest_w = ww;
        while (cur_w + rest_w > width) {  // a word wider than a whole line: cut it
            std::size_t cols = 0;
            const std::size_t k = cut_point(word, from, width > cur_w ? width - cur_w : 1, &cols);
            out += cur;
            out.append(word, from, k - from);
            out += '\n';
            from = k;
            rest_w -= cols;
            cur = cont;
            cur_w = hang;
        }
        cur.append(word, from, std::string::npos);
        cur_w += rest_w;
        cur_has_word = true;
    }
    return out + cur;
}

std::string fit_lines(const std::string& text, std::size_t width) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        const bool has_nl = nl != std::string::npos;
        if (!has_nl) nl = text.size();
        out += fit_line(text.substr(start, nl - start), width);
        if (has_nl) out += "\n";
        start = nl + 1;
    }
    return out;
}

namespace {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

std::string last_word(const std::string& line) {
    const std::size_t end = line.find_last_not_of(' ');
    if (end == std::string::npos) return "";
    const std::size_t sp = line.rfind(' ', end);
    return line.substr(sp == std::string::npos ? 0 : sp + 1, end - (sp == std::string::npos ? 0 : sp + 1) + 1);
}

std::string first_word(const std::string& line) {
    const std::size_t b = line.find_first_not_of(' ');
    if (b == std::string::npos) return "";
    return line.substr(b, line.find(' ', b) == std::string::npos ? std::string::npos : line.find(' ', b) - b);
}

bool flows(const std::string& line) {
    return !line.empty() && line[0] != ' ' && bullet_width(line, 0) == 0;
}

// Which lines flow into a paragraph. A line that only looks like a numbered item
// ("4. Every symbol …", "1) and lets …") continues the sentence of the flowing
// line above it, unless that line ends with ':' (it introduces a list).
std::vector<bool> flowing_lines(const std::vector<std::string>& lines) {
    std::vector<bool> out(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        out[i] = flows(l);
        const bool numbered = !l.empty() && std::isdigit(static_cast<unsigned char>(l[0])) && bullet_width(l, 0) > 0;
        if (numbered && i > 0 && out[i - 1] && lines[i - 1].back() != ':') out[i] = true;
    }
    return out;
}

// Greedy re-wrap of words into lines of at most `width` columns.
std::string rewrap(const std::vector<std::string>& lines, std::size_t width) {
    std::string joined;
    for (const auto& l : lines) joined += (joined.empty() ? "" : " ") + l;
    std::string out, cur;
    for (std::size_t i = 0; i < joined.size();) {
        while (i < joined.size() && joined[i] == ' ') ++i;
        if (i == joined.size()) break;
        const std::size_t e = word_end(joined, i, width);
        const std::string w = joined.substr(i, e - i);
        i = e;
        if (!cur.empty() && display_width(cur) + 1 + display_width(w) > width) {
            out += fit_line(cur, width) + "\n";
            cur.clear();
        }
        cur += (cur.empty() ? "" : " ") + w;
    }
    return out + fit_line(cur, width) + "\n";
}

}  // namespace

std::string wrap_prose(const std::string& text, std::size_t width) {
    const std::vector<std::string> lines = split_lines(text);
    const std::vector<bool> flowing = flowing_lines(lines);
    std::string out;
    for (std::size_t i = 0; i < lines.size();) {
        if (!flowing[i]) {
            out += fit_line(lines[i], width) + "\n";
            ++i;
            continue;
        }
        std::size_t j = i;
        bool too_wide = false;
        for (; j < lines.size() && flowing[j]; ++j) {
            if (display_width(lines[j]) > width) too_wide = true;
            // an equation the source broke across lines ("d_q = d_v =" / "4.") is joined again
            if (j + 1 < lines.size() && flowing[j + 1] && (is_operator(last_word(lines[j])) || is_operator(first_word(lines[j + 1]))))
                too_wide = true;
        }
        if (too_wide) {
            out += rewrap(std::vector<std::string>(lines.begin() + static_cast<long>(i), lines.begin() + static_cast<long>(j)), width);
        } else {
            for (std::size_t k = i; k < j; ++k) out += lines[k] + "\n";
        }
        i = j;
    }
    if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
    return out;
}

std::string wrap_words(const std::string& text, const std::string& indent, std::size_t width) {
    std::string out, line = indent;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find(' ', pos);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(pos, end - pos);
        if (line.size() > indent.size() && display_width(line) + 1 + display_width(word) > width) {
            out += line + "\n";
            line = indent;
        }
        if (line.size() > indent.size()) line += " ";
        line += word;
        pos = end + 1;
    }
    if (line.size() > indent.size()) out += line + "\n";
    return out;
}

std::vector<std::string> elide_items(const std::vector<std::string>& items, std::size_t head, std::size_t tail,
                                     bool full) {
    if (full || items.size() <= head + tail + 1) return items;
    std::vector<std::string> out(items.begin(), items.begin() + static_cast<long>(head));
    out.push_back("…");
    out.insert(out.end(), items.end() - static_cast<long>(tail), items.end());
    return out;
}

}  // namespace attn::trace
