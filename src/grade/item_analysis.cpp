// grade/item_analysis.cpp — see item_analysis.hpp.
#include "grade/item_analysis.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "io/csv_cell.hpp"

namespace attn::grade {

namespace {

constexpr std::size_t histogram_tenths = 10;


std::vector<double> item_maxima(const exercise_set& weighed, const std::vector<std::string>& ids) {
    std::vector<double> out;  // [items]
    for (const auto& id : ids)
        if (const exercise* x = weighed.find(id))
            for (const auto& p : x->parts) out.push_back(p.points);
    return out;
}

std::string decimals(const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v + 0.0) : std::string(); }

}  // namespace

item_analysis::item_analysis(const exercise_set& set, const grade_options& options, const std::vector<std::string>& ids)
    : stats_(item_maxima(weighed_set(set, options), ids)), bins_(histogram_tenths, 0) {
    const exercise_set weighed = weighed_set(set, options);
    for (const auto& id : ids)
        if (const exercise* x = weighed.find(id))
            for (const auto& p : x->parts) {
                at_[id + "\n" + p.id] = items_.size();
                items_.push_back({id, p.id, p.points, {}});
                max_total_ += p.points;
            }
}

void item_analysis::add(const grade_report& r) {
    if (!r.gradable) return;
    std::vector<double> row(items_.size(), 0.0);  // [items] an unanswered part scores 0
    for (const auto& x : r.exercises)
        for (const auto& p : x.parts) {
            const auto it = at_.find(x.id + "\n" + p.id);
            if (it == at_.end()) continue;
            row[it->second] = p.score;
            if (!p.mistake.empty()) ++items_[it->second].mistakes[p.mistake];
        }
    stats_.add(row);
    double total = 0.0;
    for (double v : row) total += v;
    ++bins_[histogram_bin(total, max_total_, histogram_tenths)];
}

std::vector<std::pair<std::string, std::size_t>> item_analysis::top_mistakes(const item& it) const {
    std::vector<std::pair<std::string, std::size_t>> all(it.mistakes.begin(), it.mistakes.end());  // by id
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (all.size() > 3) all.resize(3);
    return all;
}

std::string item_analysis::text() const {
    std::string out = fmt::format("\nItem analysis ({} graded submissions; discrimination: the point-biserial with the rest of "
                                  "the total)\n  {:<28} {:>6} {:>8} {:>14}  commonest named mistakes\n",
                                  stats_.students(), "exercise · part", "max", "facility", "discrimination");
    for (std::size_t i = 0; i < items_.size(); ++i) {
        std::string named;
        for (const auto& [id, n] : top_mistakes(items_[i])) named += (named.empty() ? "" : ", ") + id + " (" + std::to_string(n) + ")";
        const auto f = stats_.facility(i), d = stats_.discrimination(i);
        out += fmt::format("  {:<28} {:>6} {:>8} {:>14}  {}\n", items_[i].exercise + " · " + items_[i].part, points_str(items_[i].max),
                           f ? decimals(f) : "—", d ? decimals(d) : "—", named.empty() ? "—" : named);
    }
    const auto a = stats_.alpha();
    out += "Cronbach's alpha (KR-20 for all-or-nothing parts): " + (a ? decimals(a) : std::string("— (fewer than two parts or "
                                                                                               "students, or no spread)")) + "\n";
    out += "Totals (tenths of " + points_str(max_total_) + " points):\n";
    const std::size_t most = std::max<std::size_t>(1, *std::max_element(bins_.begin(), bins_.end()));
    for (std::size_t b = 0; b < bins_.size(); ++b)  // [lo, hi) percent, the last [90, 100]
        out += fmt::format("  {:>8} {:>6}  {}\n", fmt::format("{}–{}%", b * 10, b * 10 + 10), bins_[b],
                           std::string(bins_[b] * 40 / most, '#'));
    return out;
}

std::string item_analysis::csv() const {
    std::string out = "exercise,part,max,facility,discrimination,mistake_1,count_1,mistake_2,count_2,mistake_3,count_3\n";
    for (std::size_t i = 0; i < items_.size(); ++i) {
        out += io::csv_text_cell(items_[i].exercise) + "," + io::csv_text_cell(items_[i].part) + "," + points_str(items_[i].max) +
               "," + decimals(stats_.facility(i)) + "," + decimals(stats_.discrimination(i));
        auto top = top_mistakes(items_[i]);
        top.resize(3);
        for (const auto& [id, n] : top) out += "," + io::csv_text_cell(id) + "," + (id.empty() ? "" : std::to_string(n));
        out += "\n";
    }
    return out;
}

nlohmann::json item_analysis::json() const {
    auto number = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json items = nlohmann::json::array();
    for (std::size_t i = 0; i < items_.size(); ++i) {
        nlohmann::json named = nlohmann::json::array();
        for (const auto& [id, n] : top_mistakes(items_[i])) named.push_back({{"id", id}, {"parts", n}});
        items.push_back({{"exercise", items_[i].exercise}, {"part", items_[i].part}, {"max", items_[i].max},
                         {"facility", number(stats_.facility(i))}, {"discrimination", number(stats_.discrimination(i))},
                         {"mistakes", named}});
    }
    return {{"students", stats_.students()}, {"items", items}, {"alpha", number(stats_.alpha())},
            {"max_total", max_total_}, {"histogram_tenths", bins_}};
}

}  // namespace attn::grade
