// cli/model_train_view.cpp — the progress line, the loss curve and their layout.
#include "cli/model_train_view.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace attn::cli
