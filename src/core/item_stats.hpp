// core/item_stats.hpp — classical test theory over a class's item scores, streamed: one
// row of item scores per student is added at a time and only sums are kept (memory
// flat in the class size; the same numbers whatever the order rows were graded in, as
// rows are added in id order).
//
// For item i with score x_i out of max_i, and a student's total T = Σ x_i:
//   facility        mean(x_i) / max_i                       (0 hard … 1 easy)
//   discrimination  the point-biserial: Pearson's r between x_i and the rest of the
//                   total, R_i = T − x_i ("corrected item-total correlation")
//   alpha           Cronbach's α = k/(k−1) · (1 − Σ var(x_i) / var(T)), population
//                   variances; for items scored 0 or max it is KR-20.
// A statistic that is undefined (no students, an item or a rest everyone scored alike,
// fewer than two items) is std::nullopt, never NaN.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace attn {

class item_stats {
public:
    explicit item_stats(std::vector<double> max);  // [items] each item's maximum

    void add(const std::vector<double>& scores);  // [items] one student's item scores

    std::size_t students() const { return n_; }
    std::size_t items() const { return max_.size(); }
    std::optional<double> facility(std::size_t i) const;
    std::optional<double> discrimination(std::size_t i) const;
    std::optional<double> alpha() const;

private:
    std::vector<double> max_;             // [items]
    std::vector<double> sx_, sxx_, sxt_;  // [items] Σx, Σx², Σx·T
    double st_ = 0.0, stt_ = 0.0;         // ΣT, ΣT²
    std::size_t n_ = 0;
};

// The bin of a total among `bins` equal bins over [0, max]: [0, max/bins) is 0 … the
// last, [max − max/bins, max], holds max itself.
std::size_t histogram_bin(double total, double max, std::size_t bins);

}  // namespace attn
