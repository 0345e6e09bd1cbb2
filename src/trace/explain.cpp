// trace/explain.cpp — see explain.hpp. One named section per stage, top to bottom.
#include "trace/explain.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "trace/number_format.hpp"
#include "trace/stage_view.hpp"
#include "trace/text_width.hpp"

namespace attn::trace {

std::string weight_bar(double weight) {
    const int n = std::isfinite(weight) && weight > 0 ? static_cast<int>(weight * 40.0) : 0;
    return "|" + std::string(static_cast<std::size_t>(n), '#') + "|";
}

namespace {

// A row as "[1.2, 0.0, 1.1, 0.0]"; a long one (d > 8, without --full) by its
// ends: "[0.1, -0.3, 1.2, …, 0.7] (512 values)".
std::string row_text(const matrix& m, std::size_t row, int decimals, const style& st) {
    if (st.full || m.shape(1) <= 8) return bracketed_row(m, row, decimals);
    std::vector<std::string> items;
    for (std::size_t d = 0; d < m.shape(1); ++d) items.push_back(decimals < 0 ? compact(m(row, d)) : fixed(m(row, d), decimals));
    std::string out;
    for (const auto& it : elide_items(items, 3, 1, false)) out += (out.empty() ? "" : ", ") + it;
    return "[" + out + "] (" + std::to_string(m.shape(1)) + " values)";
}

// q·k term by term: "1.2×0.0 - 0.5×(-1.0) + …", by its ends when long (the
// count is on the key's line: "(512 values)").
std::string dot_terms(const attention_steps& s, std::size_t i, std::size_t j, const style& st) {
    std::vector<std::string> terms;
    for (std::size_t d = 0; d < s.d_k(); ++d) terms.push_back(product_term(s.q(i, d), s.k(j, d)));
    return sum_of_terms(elide_items(terms, 3, 1, st.full || s.d_k() <= 8));
}

constexpr std::size_t hidden_key_gap = static_cast<std::size_t>(-1);

// The keys a per-token trace lists: all up to view_limit, else the first and last
// view_edge with `hidden_key_gap` between (as the elided stage tables); --full lists all.
std::vector<std::size_t> listed_keys(std::size_t n_k, bool full) {
    const axis_view v = view_axis(n_k, full ? std::numeric_limits<std::size_t>::max() : view_limit);
    std::vector<std::size_t> keys;
    for (std::size_t k = 0; k < v.shown.size(); ++k) {
        keys.push_back(v.shown[k]);
        if (k == v.gap_after) keys.push_back(hidden_key_gap);
    }
    return keys;
}

std::string hidden_keys(std::size_t n_k) {
    return fmt::format("  … {} more keys: see all with --full\n", n_k - 2 * view_edge);
}

}  // namespace

std::string explain_query(const attention_steps& s, std::size_t i, const run_labels& raw_labels, const style& st,
                          std::optional<std::size_t> query) {
    const run_labels l = labels_on_screen(raw_labels);  // names from files: shown, never sent raw; equal ones apart
    const std::size_t shown = query.value_or(i);
    const std::string& qt = l.query_tokens.at(shown);
    std::size_t key_w = 0;
    for (const auto& t : l.key_tokens) key_w = std::max(key_w, display_width(t));
    const auto key = [&](std::size_t j) { return pad_right(l.key_tokens[j], key_w); };
    const std::string qref = l.q_name + "[" + qt + "]";
    const std::vector<std::size_t> keys = listed_keys(s.n_k(), st.full);  // hidden_key_gap marks the hidden keys
    std::string out;

    out += st.heading(fmt::format("=== {} trace: '{}' (row {} of {}) ===", l.title, qt, shown, l.q_name)) + "\n";
    out += qref + " = " + row_text(s.q, i, -1, st) + "\n";

    // Step 1: each dot product, term by term.
    out += "\n" + st.heading(fmt::format("Step 1 - Raw scores: {} · {}[j], term by term", qref, l.k_name)) + "\n";
    for (std::size_t j : keys) {
        if (j == hidden_key_gap) { out += hidden_keys(s.n_k()); continue; }
        const std::string k_row = fmt::format("  {}[{}] = {}", l.k_name, key(j), row_text(s.k, j, -1, st));
        const std::string sum = fmt::format("{} = {}", dot_terms(s, i, j, st), fixed(s.scores_raw(i, j), 2));
        // The terms go under the key's row when both do not fit one line.
        if (display_width(k_row) + 3 + display_width(sum) <= st.width) out += k_row + "   " + sum + "\n";
        else out += k_row + "\n      " + sum + "\n";
    }

    // Step 2: the scaling.
    const double d_k = static_cast<double>(s.d_k());
    const bool default_scale = std::fabs(s.scale - std::sqrt(d_k)) < 1e-12;
    out += "\n" + st.heading(default_scale ? fmt::format("Step 2 - Scale: ÷ √{} = ÷ {}", s.d_k(), compact(s.scale, 6))
                                           : fmt::format("Step 2 - Scale: ÷ {}", compact(s.scale, 6))) +
           "\n";
    for (std::size_t j : keys) {
        if (j == hidden_key_gap) { out += hidden_keys(s.n_k()); continue; }
        out += fmt::format("  S[{},{}] = {} ÷ {} = {}\n", qt, key(j), fixed(s.scores_raw(i, j), 2),
                           compact(s.scale, 6), fixed(s.scores_scaled(i, j), 3));
    }

    // Step 3: mask and bias, only when they change something in this row.
    bool row_changed = false;
    for (std::size_t j = 0; j < s.n_k(); ++j)
        row_changed = row_changed || !s.attend(i, j) || s.scores_masked(i, j) != s.scores_scaled(i, j);
    if (row_changed) {
        out += "\n" + st.heading("Step 2b - Bias and mask") + "\n";
        for (std::size_t j : keys) {
            if (j == hidden_key_gap) { out += hidden_keys(s.n_k()); continue; }
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
        for (std::size_t j : keys) {
            if (j == hidden_key_gap) { out += hidden_keys(s.n_k()); continue; }
            if (std::isinf(s.scores_masked(i, j)))
                out += fmt::format("  exp(-inf) = 0.0000  [{}]\n", key(j));
            else
                out += fmt::format("  exp({} - {}) = exp({}) = {}  [{}]\n", fixed(s.scores_masked(i, j), 3),
                                   fixed(row_max, 3), fixed(s.scores_masked(i, j) - row_max, 3), fixed(e[j], 4),
                                   key(j));
        }
        out += fmt::format("  sum of exp = {}\n", fixed(sum, 4));
        for (std::size_t j : keys) {
            if (j == hidden_key_gap) { out += hidden_keys(s.n_k()); continue; }
            out += fmt::format("  A[{},{}] = {} ÷ {} = {} {}\n", qt, key(j), fixed(e[j], 4), fixed(sum, 4),
                               fixed(s.weights(i, j), 4), weight_bar(s.weights(i, j)));
        }
    }

    // Step 4: the weighted sum of value rows, contribution by contribution.
    out += "\n" + st.heading(fmt::format("Step 4 - Output (weighted sum of {} rows)", l.v_name)) + "\n";
    const matrix c = contributions_for_query(s, i);  // [n_k, d_v]
    for (std::size_t j : keys) {
        if (j == hidden_key_gap) { out += hidden_keys(s.n_k()); continue; }
        const std::string line = fmt::format("  {} × {}[{}] {} = {}", fixed(s.weights(i, j), 4), l.v_name, key(j),
                                              row_text(s.v, j, -1, st), row_text(c, j, 4, st));
        if (display_width(line) <= st.width)
            out += line + "\n";
        else
            out += fmt::format("  {} × {}[{}] {}\n      = {}\n", fixed(s.weights(i, j), 4), l.v_name, key(j),
                               row_text(s.v, j, -1, st), row_text(c, j, 4, st));
    }
    out += fmt::format("  O[{}] = {}\n", qt, row_text(s.output, i, 4, st));
    double wsum = 0.0;
    for (std::size_t j = 0; j < s.n_k(); ++j) wsum += s.weights(i, j);
    if (s.row_fully_masked[i])
        out += fmt::format("  Sum of weights = {} (fully masked row)\n", fixed(wsum, 6));
    else
        // Weights computed in float32 (--dtype float32, a model's float32 forward) sum to
        // 1 within about one float32 epsilon (2⁻²³) per key, not within 1e-9.
        out += fmt::format("  Sum of weights = {} {}\n", fixed(wsum, 6),
                           std::fabs(wsum - 1.0) < 1e-9 + 1.2e-7 * static_cast<double>(s.n_k()) ? st.good("✓") : st.bad("✗"));
    return out;
}

}  // namespace attn::trace
