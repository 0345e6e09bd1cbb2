// cli/model_train_view.hpp — what `attn model train` draws while it learns: the
// progress line (step, loss, steps per second, time left) and, with --watch, one
// head's attention pattern as a heatmap beside the loss curve so far, 80 columns.
#pragma once

#include <string>
#include <vector>

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

}  // namespace attn::cli
