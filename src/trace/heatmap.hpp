// trace/heatmap.hpp — a [n_q, n_k] stage drawn as a terminal heatmap: rows are
// queries, columns keys, one block per cell. With colour: truecolor (COLORTERM =
// truecolor|24bit) or 256-colour backgrounds on a dark-to-bright ramp; without
// colour (NO_COLOR, --color never, not a terminal): shaded characters ░▒▓█.
// Blocked cells show '·'; coloured cells also print their value (2 decimals).
// The legend says "· blocked" only when some cell is.
// A legend under the map says what each shade or colour means.
// Labels are aligned by display width, so Hangul tokens line up.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"

namespace attn::trace {

struct heatmap_style {
    bool color = false;      // false: shaded characters only (plain text)
    bool truecolor = false;  // with color: 24-bit escapes instead of the 256-colour cube
};

// Reads COLORTERM to choose truecolor when colour is on.
heatmap_style heatmap_style_for(bool color);

struct heatmap_input {
    std::string title;                    // "Weights hook_pattern"
    std::vector<std::string> row_labels;  // [n_q]
    std::vector<std::string> col_labels;  // [n_k]
    const matrix* values = nullptr;       // [n_q, n_k]
    const bool_matrix* attend = nullptr;  // [n_q, n_k] optional: false cells print '·'
    bool unit_range = false;              // weights: the scale is 0..1, not min..max
    std::string axes = "rows: queries · columns: keys";  // what the rows and columns are
    std::string legend_note;              // a line under the legend (e.g. how it was downsampled)
    std::size_t width = 0;                // the legend is broken between its parts to fit; 0: one line
};

std::string render_heatmap(const heatmap_input& in, const heatmap_style& st);

// The columns the widest line of the map (its rows and header) takes in that style, so
// a caller can choose a smaller drawing before the map would wrap (a colour cell also
// holds its value, so it is wider than a shaded one).
std::size_t heatmap_columns(const heatmap_input& in, const heatmap_style& st);

// A map made smaller: each cell the largest visible value of a block of row_block queries ×
// col_block keys (blocked when no cell of the block is visible), labelled by the block's first
// row and column; values and attend receive the cells ([⌈n_q / row_block⌉, ⌈n_k / col_block⌉])
// and the returned input points at them, its legend_note saying how it was made.
heatmap_input block_max(const heatmap_input& in, std::size_t row_block, std::size_t col_block, matrix& values,
                        bool_matrix& attend);

// "each cell is the block max of R queries × C keys, labelled by its first token"
std::string block_max_note(std::size_t row_block, std::size_t col_block);

// The colour ramp at t in [0, 1] (dark blue → teal → yellow), shared with the HTML report.
struct rgb_color {
    int r, g, b;
};
rgb_color heatmap_color(double t);

// The shade of t in [0, 1]: ░ below 0.25, ▒ below 0.5, ▓ below 0.75, █ from 0.75.
const char* shade_for(double t);

}  // namespace attn::trace
