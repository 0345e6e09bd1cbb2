// cli/model_train_view.cpp — the progress line, the loss curve, the --watch frame and
// their layout.
#include "cli/model_train_view.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "trace/text_width.hpp"

namespace attn::cli {

std::string progress_text(std::size_t step, std::size_t total, double loss, double its_per_s) {
    std::string left = "?";
    if (its_per_s > 0 && std::isfinite(its_per_s)) {
        const auto secs = static_cast<long>(std::lround(static_cast<double>(total - step) / its_per_s));
        left = fmt::format("{}:{:02d}", secs / 60, secs % 60);
    }
    const std::string l = std::isfinite(loss) ? fmt::format("{:.4f}", loss) : std::string("not a number");
    return fmt::format("step {}/{}  loss {}  {:.1f} it/s  {} left", step, total, l, its_per_s, left);
}

std::vector<std::string> loss_curve(const std::vector<double>& losses, std::size_t width, std::size_t height) {
    const std::size_t axis = 8;  // "  2.3456 │"
    const std::size_t cols = width > axis + 4 ? width - axis - 1 : 4;
    std::vector<double> mean(std::min(cols, std::max<std::size_t>(losses.size(), 1)), 0.0);
    const std::size_t n = losses.size();
    for (std::size_t c = 0; c < mean.size() && n > 0; ++c) {
        const std::size_t a = c * n / mean.size(), b = std::max(a + 1, (c + 1) * n / mean.size());
        double s = 0;
        for (std::size_t i = a; i < b; ++i) s += losses[i];
        mean[c] = s / static_cast<double>(b - a);
    }
    double lo = n ? *std::min_element(mean.begin(), mean.end()) : 0.0;
    double hi = n ? *std::max_element(mean.begin(), mean.end()) : 1.0;
    if (!(hi > lo)) hi = lo + 1e-9;
    std::vector<std::string> out{"loss per step"};
    for (std::size_t r = 0; r < height; ++r) {
        // Row r covers (from the top) the band of values nearest to its level.
        std::string label(axis, ' ');
        if (r == 0) label = fmt::format("{:>8.4f}", hi);
        if (r + 1 == height) label = fmt::format("{:>8.4f}", lo);
        std::string line = label + "│";
        for (std::size_t c = 0; c < mean.size(); ++c) {
            const double t = (mean[c] - lo) / (hi - lo);
            const auto row = static_cast<std::size_t>(std::lround((1.0 - t) * static_cast<double>(height - 1)));
            line += n > 0 && row == r ? "•" : " ";
        }
        out.push_back(line);
    }
    std::string base(axis, ' ');
    out.push_back(base + "└" + std::string(std::min(cols, std::max<std::size_t>(mean.size(), 1)), '-'));
    out.push_back(base + fmt::format(" steps 1 … {}", n));
    return out;
}

std::string side_by_side(const std::string& left, const std::vector<std::string>& right, std::size_t width) {
    // The first line of `left` (its title) stands alone above; the rest goes beside.
    std::vector<std::string> l;
    std::size_t start = 0, lw = 0;
    while (start < left.size()) {
        std::size_t end = left.find('\n', start);
        if (end == std::string::npos) end = left.size();
        l.push_back(left.substr(start, end - start));
        if (l.size() > 1) lw = std::max(lw, trace::display_width(l.back()));
        start = end + 1;
    }
    std::size_t rw = 0;
    for (const auto& r : right) rw = std::max(rw, trace::display_width(r));
    std::string out;
    if (lw + 2 + rw > width) {  // no room beside: under it
        for (const auto& s : l) out += s + "\n";
        for (const auto& s : right) out += s + "\n";
        return out;
    }
    if (!l.empty()) out += l.front() + "\n";
    for (std::size_t i = 1; i < std::max(l.size(), right.size() + 1); ++i) {
        const std::string a = i < l.size() ? l[i] : "";
        const std::string b = i - 1 < right.size() ? right[i - 1] : "";
        out += b.empty() ? a : trace::pad_right(a, lw) + "  " + b;
        out += "\n";
    }
    return out;
}

namespace {

constexpr std::size_t curve_width = 30;  // loss_curve's box: 8 for the axis labels, 1, 21 columns of steps
constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max() / 4;

std::size_t env_size(const char* name) {
    const char* v = std::getenv(name);
    if (!v || !*v) return 0;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    return end && *end == '\0' && n > 0 && n < 100000 ? static_cast<std::size_t>(n) : 0;
}

std::vector<std::string> frame_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

// The widest line but the first (the title, which stands alone above the frame).
std::size_t body_width(const std::vector<std::string>& lines) {
    std::size_t w = 0;
    for (std::size_t i = 1; i < lines.size(); ++i) w = std::max(w, trace::display_width(lines[i]));
    return w;
}

struct fitted_map {
    std::vector<std::string> lines;  // the rendered map: title, column labels, rows, legend
    std::size_t cells_per_block = 1; // row block × column block (1: the whole map, cell for cell)
    bool fits = false;
};

fitted_map render_blocks(const trace::heatmap_input& full, std::size_t rb, std::size_t cb, std::size_t cols) {
    matrix values;
    bool_matrix attend;
    trace::heatmap_input in = trace::block_max(full, rb, cb, values, attend);
    in.width = cols;
    if (rb > 1 || cb > 1)  // block_max_note, short enough for a map beside the curve
        in.legend_note = fmt::format("a cell: the max of {} queries × {} keys", rb, cb);
    return {frame_lines(trace::render_heatmap(in, trace::heatmap_style{})), rb * cb, false};
}

// Lines the map takes on screen: its title (alone above, wrapped to the frame's title_cols)
// and the rest.
std::size_t screen_lines(const fitted_map& m, std::size_t title_cols) {
    if (m.lines.empty()) return 0;
    return frame_lines(trace::fit_lines(m.lines.front(), title_cols)).size() + m.lines.size() - 1;
}

// The map with the smallest column blocks whose body fits `cols`, then the smallest row
// blocks whose lines fit `rows`; the smallest map there is when nothing fits.
fitted_map fit_map(const trace::heatmap_input& full, std::size_t cols, std::size_t rows, std::size_t title_cols) {
    const std::size_t n_q = full.values->shape(0), n_k = full.values->shape(1);
    std::size_t cb = 1, rb = 1;
    fitted_map m = render_blocks(full, rb, cb, cols);
    while (body_width(m.lines) > cols && cb < n_k) m = render_blocks(full, rb, ++cb, cols);
    while (screen_lines(m, title_cols) > rows && rb < n_q) m = render_blocks(full, ++rb, cb, cols);
    m.fits = body_width(m.lines) <= cols && screen_lines(m, title_cols) <= rows;
    return m;
}

std::string join(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
}

}  // namespace

watch_area watch_area_for(std::size_t width_flag) {
    if (width_flag) return {width_flag, unbounded};
    winsize ws{};
    if (isatty(STDERR_FILENO) && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0)
        return {ws.ws_col, ws.ws_row};
    const std::size_t c = env_size("COLUMNS"), r = env_size("LINES");
    return {c ? c : 80, r ? r : 24};
}

std::string watch_frame(const trace::heatmap_input& map, const std::vector<double>& losses, watch_area area) {
    const std::size_t cols = std::max<std::size_t>(area.cols, 20);
    const std::size_t budget = area.rows > 1 ? area.rows - 1 : 1;  // lines; the progress line is the last
    const std::size_t curve_h = std::clamp<std::size_t>(budget > 12 ? budget / 3 : 3, 3, 8);
    const std::size_t curve_lines = curve_h + 3;  // loss_curve: its caption, the box, the axis, the steps
    // Beside: the map's title alone on top, then its body and the curve side by side.
    fitted_map beside;
    if (cols > curve_width + 2 + 20 && budget > curve_lines)
        beside = fit_map(map, cols - curve_width - 2, budget, cols);
    // Above: the map over a curve as wide as the terminal.
    const fitted_map above = fit_map(map, cols, budget > curve_lines ? budget - curve_lines : 1, cols);
    std::string frame;
    if (beside.fits && (!above.fits || beside.cells_per_block <= above.cells_per_block)) {
        frame = side_by_side(join(beside.lines), loss_curve(losses, curve_width, curve_h), cols);
    } else if (above.fits) {
        frame = join(above.lines) + join(loss_curve(losses, std::min<std::size_t>(cols, 60), curve_h));
    } else {  // too small a terminal for both: the map alone, as small as it gets
        frame = join(fit_map(map, cols, budget, cols).lines);
    }
    std::vector<std::string> lines = frame_lines(trace::fit_lines(frame, cols));
    if (lines.size() > budget) lines.resize(budget);
    return join(lines);
}

}  // namespace attn::cli
