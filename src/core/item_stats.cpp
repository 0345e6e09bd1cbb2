// core/item_stats.cpp — see item_stats.hpp.
#include "core/item_stats.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/internal_error.hpp"

namespace attn {

item_stats::item_stats(std::vector<double> max)
    : max_(std::move(max)), sx_(max_.size(), 0.0), sxx_(max_.size(), 0.0), sxt_(max_.size(), 0.0) {}

void item_stats::add(const std::vector<double>& scores) {
    if (scores.size() != max_.size()) throw internal_error("item_stats::add: a row of the wrong length");
    double t = 0.0;
    for (double x : scores) t += x;
    for (std::size_t i = 0; i < scores.size(); ++i) {
        sx_[i] += scores[i];
        sxx_[i] += scores[i] * scores[i];
        sxt_[i] += scores[i] * t;
    }
    st_ += t;
    stt_ += t * t;
    ++n_;
}

std::optional<double> item_stats::facility(std::size_t i) const {
    if (n_ == 0 || !(max_.at(i) > 0.0)) return std::nullopt;
    return sx_[i] / static_cast<double>(n_) / max_[i];
}

namespace {

// n·Σab − Σa·Σb: n² times the population covariance (exact for the sums kept).
double comoment(double n, double sa, double sb, double sab) { return n * sab - sa * sb; }

}  // namespace

std::optional<double> item_stats::discrimination(std::size_t i) const {
    const double n = static_cast<double>(n_);
    const double sr = st_ - sx_.at(i);                        // Σ R, R = T − x
    const double srr = stt_ - 2.0 * sxt_[i] + sxx_[i];        // Σ R²
    const double sxr = sxt_[i] - sxx_[i];                     // Σ x·R
    const double vx = comoment(n, sx_[i], sx_[i], sxx_[i]);
    const double vr = comoment(n, sr, sr, srr);
    const double scale = 1e-12 * (1.0 + n * n * max_[i] * max_[i]);  // below this a variance is rounding
    if (n_ < 2 || vx <= scale || vr <= scale) return std::nullopt;
    return comoment(n, sx_[i], sr, sxr) / std::sqrt(vx * vr);
}

std::optional<double> item_stats::alpha() const {
    const double n = static_cast<double>(n_), k = static_cast<double>(max_.size());
    if (n_ < 2 || max_.size() < 2) return std::nullopt;
    double items = 0.0;
    for (std::size_t i = 0; i < max_.size(); ++i) items += comoment(n, sx_[i], sx_[i], sxx_[i]);
    const double total = comoment(n, st_, st_, stt_);
    if (!(total > 1e-12 * (1.0 + n * n))) return std::nullopt;
    return k / (k - 1.0) * (1.0 - items / total);
}

std::size_t histogram_bin(double total, double max, std::size_t bins) {
    if (bins == 0 || !(max > 0.0)) return 0;
    const double at = std::floor(total / max * static_cast<double>(bins));
    return at <= 0.0 ? 0 : std::min(bins - 1, static_cast<std::size_t>(at));
}

}  // namespace attn
