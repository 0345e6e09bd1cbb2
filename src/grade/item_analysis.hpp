// grade/item_analysis.hpp — `attn grade --class DIR --item-analysis`: how each exercise
// part worked across the class (Gradescope's and Moodle's item analysis). For every
// part of the assignment: facility (mean score / max), discrimination (the point-biserial
// with the rest of the total, core/item_stats.hpp), the three commonest named mistakes;
// for the assignment: a histogram of totals in tenths and Cronbach's α (KR-20 for
// all-or-nothing parts). Graded submissions only; fed in id order, kept as sums.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/item_stats.hpp"
#include "grade/grader.hpp"

namespace attn::grade {

class item_analysis {
public:
    // The items: each part of the exercises (in that order) as `set`, weighed by the
    // options' assignment (grader.hpp's weighed_set), scores them.
    item_analysis(const exercise_set& set, const grade_options& options, const std::vector<std::string>& exercise_ids);

    void add(const grade_report& r);  // a not-gradable report is skipped

    // "Item analysis (N graded submissions) …": one line per part, the histogram, α.
    std::string text() const;
    // exercise,part,max,facility,discrimination,mistake_1,count_1,…,mistake_3,count_3
    std::string csv() const;
    nlohmann::json json() const;

private:
    struct item {
        std::string exercise, part;
        double max = 0.0;
        std::map<std::string, std::size_t> mistakes;  // named mistake id → parts that showed it
    };
    std::vector<item> items_;              // [items]
    std::map<std::string, std::size_t> at_;  // "exercise\npart" → index into items_
    item_stats stats_;
    double max_total_ = 0.0;
    std::vector<std::size_t> bins_;  // [10] totals by tenth of the maximum
    std::vector<std::pair<std::string, std::size_t>> top_mistakes(const item& it) const;
};

}  // namespace attn::grade
