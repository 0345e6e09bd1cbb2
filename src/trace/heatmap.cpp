// trace/heatmap.cpp — see heatmap.hpp.
#include "trace/heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>
#include <xtensor/xbuilder.hpp>

#include "io/terminal_safe.hpp"
#include "trace/number_format.hpp"
#include "trace/text_width.hpp"

namespace attn::trace {

namespace {

struct rgb {
    int r, g, b;
};

// A viridis-like ramp: dark blue (low) → teal → yellow (high); readable on dark and light terminals.
rgb ramp(double t) {
    static const rgb stops[] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    t = std::clamp(t, 0.0, 1.0) * 4.0;
    const int i = std::min(3, static_cast<int>(t));
    const double f = t - i;
    const rgb a = stops[i], b = stops[i + 1];
    return {static_cast<int>(std::lround(a.r + (b.r - a.r) * f)), static_cast<int>(std::lround(a.g + (b.g - a.g) * f)),
            static_cast<int>(std::lround(a.b + (b.b - a.b) * f))};
}

std::string background(const rgb& c, bool truecolor) {
    if (truecolor) return fmt::format("\x1b[48;2;{};{};{}m", c.r, c.g, c.b);
    const auto q = [](int v) { return static_cast<int>(std::lround(v / 255.0 * 5.0)); };
    return fmt::format("\x1b[48;5;{}m", 16 + 36 * q(c.r) + 6 * q(c.g) + q(c.b));
}

std::string repeat(const std::string& s, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += s;
    return out;
}

// The legend's parts joined by spaces, starting a new line (indented 4) only
// where the next part would pass `width` (0: no limit).
std::string pack_legend(const std::vector<std::string>& parts, std::size_t width) {
    std::string out, line = "  ";
    bool first = true;
    for (const auto& p : parts) {
        if (!first && width && display_width(line) + 1 + display_width(p) > width) {
            out += line + "\n";
            line = "    ";
            first = true;
        }
        line += first ? p.substr(p.find_first_not_of(' ')) : " " + p;
        first = false;
    }
    return out + line + "\n";
}

}  // namespace

rgb_color heatmap_color(double t) {
    const rgb c = ramp(t);
    return {c.r, c.g, c.b};
}

heatmap_style heatmap_style_for(bool color) {
    heatmap_style st;
    st.color = color;
    const char* ct = std::getenv("COLORTERM");
    st.truecolor = color && ct && (std::string(ct) == "truecolor" || std::string(ct) == "24bit");
    return st;
}

const char* shade_for(double t) {
    if (t < 0.25) return "░";
    if (t < 0.5) return "▒";
    if (t < 0.75) return "▓";
    return "█";
}

namespace {

// Whether cell (i, j) is drawn: not blocked and finite.
bool visible_cell(const heatmap_input& in, std::size_t i, std::size_t j) {
    return (!in.attend || (*in.attend)(i, j)) && std::isfinite((*in.values)(i, j));
}

// The columns of one cell: its column label's, at least 3; with colour also its value
// (2 decimals) and a space. Labels as drawn (terminal-safe).
std::size_t cell_width(const heatmap_input& in, const heatmap_style& st) {
    std::size_t cell_w = 3;
    for (const auto& c : in.col_labels) cell_w = std::max(cell_w, display_width(io::terminal_safe(c)));
    const matrix& m = *in.values;
    if (st.color)
        for (std::size_t i = 0; i < m.shape(0); ++i)
            for (std::size_t j = 0; j < m.shape(1); ++j)
                if (visible_cell(in, i, j)) cell_w = std::max(cell_w, fixed(m(i, j), 2).size() + 1);
    return cell_w;
}

}  // namespace

std::size_t heatmap_columns(const heatmap_input& in, const heatmap_style& st) {
    std::size_t row_w = 0;
    for (const auto& r : in.row_labels) row_w = std::max(row_w, display_width(io::terminal_safe(r)));
    return 2 + row_w + in.values->shape(1) * (1 + cell_width(in, st));
}

std::string render_heatmap(const heatmap_input& raw, const heatmap_style& st) {
    heatmap_input in = raw;  // labels come from users' files: shown, never sent raw
    in.title = io::terminal_safe(in.title);
    for (auto& s : in.row_labels) s = io::terminal_safe(s);
    for (auto& s : in.col_labels) s = io::terminal_safe(s);
    const matrix& m = *in.values;
    const std::size_t n_q = m.shape(0), n_k = m.shape(1);
    const auto visible = [&](std::size_t i, std::size_t j) { return visible_cell(in, i, j); };

    // The value range the shades span.
    double lo = 0.0, hi = 1.0;
    if (!in.unit_range) {
        lo = std::numeric_limits<double>::infinity();
        hi = -lo;
        for (std::size_t i = 0; i < n_q; ++i)
            for (std::size_t j = 0; j < n_k; ++j)
                if (visible(i, j)) lo = std::min(lo, m(i, j)), hi = std::max(hi, m(i, j));
        if (!std::isfinite(lo)) lo = hi = 0.0;
    }
    const auto unit = [&](double x) { return hi > lo ? (x - lo) / (hi - lo) : 1.0; };

    std::size_t row_w = 0;
    for (const auto& r : in.row_labels) row_w = std::max(row_w, display_width(r));
    // With colour the cells also carry their value (2 decimals) over the background.
    const auto cell_text = [&](double x) { return fixed(x, 2); };
    const std::size_t cell_w = cell_width(in, st);

    std::string out = in.title + "  [" + std::to_string(n_q) + " × " + std::to_string(n_k) + "]  (" + in.axes + ")\n";
    out += "  " + pad_right("", row_w);
    for (const auto& c : in.col_labels) out += " " + pad_left(c, cell_w);
    out += "\n";
    for (std::size_t i = 0; i < n_q; ++i) {
        out += "  " + pad_right(in.row_labels[i], row_w);
        for (std::size_t j = 0; j < n_k; ++j) {
            out += " ";
            if (!visible(i, j)) {
                out += pad_left("·", cell_w);
            } else if (st.color) {
                const double t = unit(m(i, j));
                const char* ink = t < 0.6 ? "\x1b[97m" : "\x1b[30m";  // white on dark, black on bright
                out += background(ramp(t), st.truecolor) + ink + pad_left(cell_text(m(i, j)), cell_w) + "\x1b[0m";
            } else {
                out += repeat(shade_for(unit(m(i, j))), cell_w);
            }
        }
        out += "\n";
    }

    // Legend: what the shades or colours stand for, in parts that are never split
    // (a number and its shade stay together), packed into lines of the width.
    const auto at = [&](double t) { return fixed(lo + t * (hi - lo), in.unit_range ? 2 : 3); };
    std::vector<std::string> parts;
    if (st.color) {
        std::string bar;
        for (int k = 0; k < 16; ++k) bar += background(ramp(k / 15.0), st.truecolor) + " ";
        parts = {"legend: " + at(0) + " " + bar + "\x1b[0m " + at(1)};
    } else {
        parts = {"legend: ░ < " + at(0.25), "≤ ▒ < " + at(0.5), "≤ ▓ < " + at(0.75), "≤ █",
                 "(range " + at(0) + " .. " + at(1) + ")"};
    }
    bool any_blocked = false;  // "· blocked" only where the map has such a cell
    for (std::size_t i = 0; i < n_q; ++i)
        for (std::size_t j = 0; j < n_k; ++j) any_blocked = any_blocked || !visible(i, j);
    if (any_blocked) parts.push_back("  · blocked");
    out += pack_legend(parts, in.width);
    if (!in.legend_note.empty()) out += "  " + in.legend_note + "\n";
    return out;
}

heatmap_input block_max(const heatmap_input& in, std::size_t row_block, std::size_t col_block, matrix& values,
                        bool_matrix& attend) {
    const matrix& m = *in.values;
    const std::size_t n_q = m.shape(0), n_k = m.shape(1);
    row_block = std::max<std::size_t>(row_block, 1);
    col_block = std::max<std::size_t>(col_block, 1);
    const std::size_t rows = (n_q + row_block - 1) / row_block, cols = (n_k + col_block - 1) / col_block;
    values = xt::zeros<double>({rows, cols});   // [rows, cols] block maxima
    attend = xt::zeros<bool>({rows, cols});     // [rows, cols] some cell of the block is visible
    for (std::size_t i = 0; i < n_q; ++i)
        for (std::size_t j = 0; j < n_k; ++j) {
            if ((in.attend && !(*in.attend)(i, j)) || !std::isfinite(m(i, j))) continue;
            const std::size_t bi = i / row_block, bj = j / col_block;
            if (!attend(bi, bj) || m(i, j) > values(bi, bj)) values(bi, bj) = m(i, j);
            attend(bi, bj) = true;
        }
    heatmap_input out = in;
    out.row_labels.clear();
    out.col_labels.clear();
    for (std::size_t i = 0; i < rows; ++i) out.row_labels.push_back(in.row_labels[i * row_block]);
    for (std::size_t j = 0; j < cols; ++j) out.col_labels.push_back(in.col_labels[j * col_block]);
    out.values = &values;
    out.attend = &attend;
    if (row_block > 1 || col_block > 1) out.legend_note = block_max_note(row_block, col_block);
    return out;
}

std::string block_max_note(std::size_t row_block, std::size_t col_block) {
    return "each cell is the block max of " + std::to_string(row_block) + " queries × " + std::to_string(col_block) +
           " keys, labelled by its first token";
}

}  // namespace attn::trace
