// trace/explain.cpp — see explain.hpp. One named section per stage, top to bottom.
#include "trace/explain.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "trace/number_format.hpp"
#include "trace/text_width.hpp"

namespace attn::trace {

std::string weight_bar(double weight) {
    const int n = std::isfinite(weight) && weight > 0 ? static_cast<int>(weight * 40.0) : 0;
    return "|" + std::string(static_cast<std::size_t>(n), '#') + "|";
}

std::string explain_query(const attention_steps& s, std::size_t i, const run_labels& l, const style& st,
                          std::optional<std::size_t> query) {
    const std::size_t shown = query.value_or(i);
    const std::string& qt = l.query_tokens.at(shown);
    std::size_t key_w = 0;
    for (const auto& t : l.key_tokens) key_w = std::max(key_w, display_width(t));
    const auto key = [&](std::size_t j) { return pad_right(l.key_tokens[j], key_w); };
    const std::string qref = l.q_name + "[" + qt + "]";
    std::string out;

    out += st.heading(fmt::format("=== {} trace: '{}' (row {} of {}) ===", l.title, qt, shown, l.q_name)) + "\n";
    out += qref + " = " + bracketed_row(s.q, i) + "\n";

    // Step 1: each dot product, term by term.
    out += "\n" + st.heading(fmt::format("Step 1 - Raw scores: {} · {}[j], term by term", qref, l.k_name)) + "\n";
    for (std::size_t j = 0; j < s.n_k(); ++j) {
        std::string terms;
        for (std::size_t d = 0; d < s.d_k(); ++d) {
            if (d) terms += " + ";
            terms += compact(s.q(i, d)) + "×" + compact(s.k(j, d));
        }
        out += fmt::format("  {}[{}] = {}   {} = {}\n", l.k_name, key(j), bracketed_row(s.k, j), terms,
                           fixed(s.scores_raw(i, j), 2));
    }

    // Step 2: the scaling.
    const double d_k = static_cast<double>(s.d_k());
    const bool default_scale = std::fabs(s.scale - std::sqrt(d_k)) < 1e-12;
    out += "\n" + st.heading(default_scale ? fmt::format("Step 2 - Scale: ÷ √{} = ÷ {}", s.d_k(), compact(s.scale, 6))
                                           : fmt::format("Step 2 - Scale: ÷ {}", compact(s.scale, 6))) +
           "\n";
    for (std::size_t j = 0; j < s.n_k(); ++j)
        out += fmt::format("  S[{},{}] = {} ÷ {} = {}\n", qt, key(j), fixed(s.scores_raw(i, j), 2),
                           compact(s.scale, 6), fixed(s.scores_scaled(i, j), 3));

    // Step 3: mask and bias, only when they change something in this row.
    bool row_changed = false;
    for (std::size_t j = 0; j < s.n_k(); ++j)
        row_changed = row_changed || !s.attend(i, j) || s.scores_masked(i, j) != s.scores_scaled(i, j);
    if (row_changed) {
        out += "\n" + st.heading("Step 2b - Bias and mask") + "\n";
        for (std::size_t j = 0; j < s.n_k(); ++j) {
            const std::string note = s.attend(i, j) ? "" : "   (blocked by the mask)";
            out += fmt::format("  S[{},{}] = {}{}\n", qt, key(j), fixed(s.scores_masked(i, j), 3), note);
        }
    }

    // Step 3: softmax, shown with its max-shift, exp values and their sum.
    out += "\n" + st.heading("Step 3 - Softmax weights") + "\n";
    if (s.row_fully_masked[i]) {
        out += "  every key is blocked for this query: no distribution exists, weights are 0 (not 0/0)\n";
    } else {
        double row_max = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < s.n_k(); ++j) row_max = std::max(row_max, s.scores_masked(i, j));
        std::vector<double> e(s.n_k());
        double sum = 0.0;
        for (std::size_t j = 0; j < s.n_k(); ++j) {
            e[j] = std::exp(s.scores_masked(i, j) - row_max);
            sum += e[j];
        }
        out += fmt::format("  shift by the row max {} so that exp never overflows\n", fixed(row_max, 3));
        for (std::size_t j = 0; j < s.n_k(); ++j) {
            if (std::isinf(s.scores_masked(i, j)))
                out += fmt::format("  exp(-inf) = 0.0000  [{}]\n", key(j));
            else
                out += fmt::format("  exp({} - {}) = exp({}) = {}  [{}]\n", fixed(s.scores_masked(i, j), 3),
                                   fixed(row_max, 3), fixed(s.scores_masked(i, j) - row_max, 3), fixed(e[j], 4),
                                   key(j));
        }
        out += fmt::format("  sum of exp = {}\n", fixed(sum, 4));
        for (std::size_t j = 0; j < s.n_k(); ++j)
            out += fmt::format("  A[{},{}] = {} ÷ {} = {} {}\n", qt, key(j), fixed(e[j], 4), fixed(sum, 4),
                               fixed(s.weights(i, j), 4), weight_bar(s.weights(i, j)));
    }

    // Step 4: the weighted sum of value rows, contribution by contribution.
    out += "\n" + st.heading(fmt::format("Step 4 - Output (weighted sum of {} rows)", l.v_name)) + "\n";
    const matrix c = contributions_for_query(s, i);  // [n_k, d_v]
    for (std::size_t j = 0; j < s.n_k(); ++j)
        out += fmt::format("  {} × {}[{}] {} = {}\n", fixed(s.weights(i, j), 4), l.v_name, key(j),
                           bracketed_row(s.v, j), bracketed_row(c, j, 4));
    out += fmt::format("  O[{}] = {}\n", qt, bracketed_row(s.output, i, 4));
    double wsum = 0.0;
    for (std::size_t j = 0; j < s.n_k(); ++j) wsum += s.weights(i, j);
    if (s.row_fully_masked[i])
        out += fmt::format("  Sum of weights = {} (fully masked row)\n", fixed(wsum, 6));
    else
        out += fmt::format("  Sum of weights = {} {}\n", fixed(wsum, 6),
                           std::fabs(wsum - 1.0) < 1e-9 ? st.good("✓") : st.bad("✗"));
    return out;
}

}  // namespace attn::trace
