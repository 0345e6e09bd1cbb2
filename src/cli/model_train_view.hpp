// cli/model_train_view.hpp — what `attn model train` draws while it learns: the
// progress line (step, loss, steps per second, time left) and, with --watch, one
// head's attention pattern as a heatmap beside (or above) the loss curve so far, fitted
// to the terminal: the map downsampled by block max until the frame fits its width and
// height, so each frame redraws over the last with nothing left over.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "trace/heatmap.hpp"

namespace attn::cli {

// "step 120/2000  loss 0.4512  57.3 it/s  0:33 left" (no newline).
std::string progress_text(std::size_t step, std::size_t total, double loss, double its_per_s);

// The loss curve of `losses` (one per step) in a box of `width` × `height` cells:
// each column the mean of its steps, the y axis from the lowest to the highest mean,
// labelled at the top and bottom, the steps under it. Lines without a newline.
std::vector<std::string> loss_curve(const std::vector<double>& losses, std::size_t width, std::size_t height);

// `left` (the heatmap: its title line, then the map) with `right` (the curve) beside
// the map when both fit in `width` columns with two spaces between, else `right`
// under `left`. Ends with a newline.
std::string side_by_side(const std::string& left, const std::vector<std::string>& right, std::size_t width);

// The room a --watch frame has: --width N (the height then unbounded: output for a file),
// else the terminal on stderr (TIOCGWINSZ), else $COLUMNS × $LINES, else 80 × 24.
struct watch_area {
    std::size_t cols = 80;
    std::size_t rows = 24;  // the frame gets rows − 1 lines: the progress line is the last
};
watch_area watch_area_for(std::size_t width_flag);

// One --watch frame of `map` (the full [n, n] pattern with its labels and title) and the
// losses so far: the map with the smallest blocks that fit, beside the loss curve when
// that costs the map nothing more than putting the curve under it, else above the curve,
// else alone. At most area.rows − 1 lines of at most area.cols columns, ends with a newline.
std::string watch_frame(const trace::heatmap_input& map, const std::vector<double>& losses, watch_area area);

}  // namespace attn::cli
