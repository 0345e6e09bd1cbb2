// lessons/show_mask.cpp — show kinds about masks: the ✓/✗ grid of who may look
// at whom, the next-token pairs a causal mask makes honest (A → B, AB → C), and
// a bit-for-bit comparison of two runs (−1e5 against −inf).
#include <cmath>

#include <fmt/format.h>

#include "lessons/readable_name.hpp"
#include "lessons/show_kinds.hpp"
#include "trace/number_format.hpp"
#include "core/stages.hpp"
#include "trace/table.hpp"

namespace attn::lessons::show {

namespace {

std::string show_mask_grid(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item);
    const bool_matrix& a = run.steps.attend;  // [n_q, n_k]
    std::vector<std::string> rows = run.labels.query_tokens, cols = run.labels.key_tokens;
    if (item.spec->get("labels")) {
        if (a.shape(0) != a.shape(1)) bad(item, "'labels' needs a square mask (the same tokens on both sides)", "labels");
        rows = cols = need_tokens(l, item, "labels", a.shape(0));
    }
    trace::table t;
    t.title = opt_string(item, "title", run.labels.title + ": who may attend to whom (✓ attend, ✗ blocked)");
    t.axes = "rows: " + run.labels.query_side + " · columns: " + run.labels.key_side;
    t.shape = "[" + std::to_string(a.shape(0)) + " × " + std::to_string(a.shape(1)) + "]";
    t.corner = run.labels.q_name + " \\ " + run.labels.k_name;
    t.row_labels = rows;
    t.col_labels = cols;
    std::size_t open = 0;
    for (std::size_t i = 0; i < a.shape(0); ++i) {
        t.cells.emplace_back();
        for (std::size_t j = 0; j < a.shape(1); ++j) {
            t.cells.back().push_back(a(i, j) ? "✓" : "✗");
            open += a(i, j) ? 1 : 0;
        }
    }
    return trace::render(t, st) + fmt::format("  {} of {} query–key pairs are visible\n", open, a.size());
}

// Each prefix of a sequence and the token it must predict: what one causal
// forward pass trains on, all positions at once.
std::string show_next_token(const lesson& l, const show_item& item, const trace::style& st) {
    const std::string name = need_string(item, "tokens");
    auto it = l.tokens.find(name);
    if (it == l.tokens.end()) bad(item, "token list '" + name + "' is not in [tokens]", "tokens");
    const auto& toks = it->second;
    if (toks.size() < 2) bad(item, "token list '" + name + "' needs at least 2 tokens", "tokens");
    trace::table t;
    t.title = opt_string(item, "title", "Next-token pairs of \"" + [&] {
        std::string s;
        for (const auto& x : toks) s += (s.empty() ? "" : " ") + x;
        return s;
    }() + "\"");
    t.axes = "rows: positions · the prefix a position may see, and the token it predicts";
    t.shape = "[" + std::to_string(toks.size() - 1) + " × 2]";
    t.corner = "position";
    t.col_labels = {"sees (its prefix)", "predicts"};
    for (std::size_t i = 0; i + 1 < toks.size(); ++i) {
        std::string prefix;
        for (std::size_t j = 0; j <= i; ++j) prefix += (j ? " " : "") + toks[j];
        t.row_labels.push_back(toks[i]);
        t.cells.push_back({prefix, "→ " + toks[i + 1]});
    }
    return trace::render(t, st);
}


// Are two runs' stages the same number for number? Reports the largest
// difference and how many entries are exactly zero in each.
std::string show_same_matrices(const lesson& l, const show_item& item, const trace::style& st);

std::string show_same_numbers(const lesson& l, const show_item& item, const trace::style& st) {
    if (item.spec->get("matrices")) return show_same_matrices(l, item, st);
    if (!item.spec->get("stage")) bad(item, "needs 'runs' and 'stage', or 'matrices'");
    const auto names = need_strings(item, "runs", 2);
    std::vector<const attention_run*> runs;
    for (const auto& n : names) {
        auto it = l.runs.find(n);
        if (it == l.runs.end()) bad(item, "run '" + n + "' is not in [runs]", "runs");
        runs.push_back(&it->second);
    }
    const std::string stage_name = need_string(item, "stage");
    auto s = parse_head_stage(stage_name);
    if (!s) bad(item, "unknown stage '" + stage_name + "'" + stage_hint(stage_name) + " (expected one of " + stage_alias_list() + ")", "stage");
    const matrix& a = stage_matrix(runs[0]->steps, *s);
    const matrix& b = stage_matrix(runs[1]->steps, *s);
    if (a.shape() != b.shape()) bad(item, "the two runs' " + stage_name + " have different shapes", "runs");
    double worst = 0.0;
    std::size_t wi = 0, wj = 0, differ = 0, zeros_a = 0, zeros_b = 0, compared = 0;
    for (std::size_t i = 0; i < a.shape(0); ++i)
        for (std::size_t j = 0; j < a.shape(1); ++j) {
            zeros_a += a(i, j) == 0.0 ? 1 : 0;
            zeros_b += b(i, j) == 0.0 ? 1 : 0;
            if (!std::isfinite(a(i, j)) || !std::isfinite(b(i, j))) {
                differ += a(i, j) == b(i, j) ? 0 : 1;
                continue;
            }
            ++compared;
            const double d = std::fabs(a(i, j) - b(i, j));
            differ += a(i, j) == b(i, j) ? 0 : 1;
            if (d > worst) {
                worst = d;
                wi = i;
                wj = j;
            }
        }
    const std::string what = stage_info_of(*s).caption;
    std::string out = st.heading(opt_string(item, "title", runs[0]->labels.title + " against " +
                                                               runs[1]->labels.title + ": " + what)) +
                      "  [" + std::to_string(a.shape(0)) + " × " + std::to_string(a.shape(1)) + "]\n";
    if (differ == 0) {
        out += fmt::format("  all {} entries are bit-for-bit identical (largest |difference| = 0)\n", a.size());
    } else {
        out += fmt::format("  {} of {} entries differ", differ, a.size());
        if (worst > 0)
            out += fmt::format("; largest |difference| among finite entries = {} at ({}, {})",
                               fmt::format("{:.3g}", worst), runs[0]->labels.query_tokens[wi],
                               a.shape(1) == runs[0]->labels.key_tokens.size() ? runs[0]->labels.key_tokens[wj]
                                                                               : "d" + std::to_string(wj));
        if (compared < a.size()) out += fmt::format("; {} entries are infinite in at least one run", a.size() - compared);
        out += "\n";
    }
    if (zeros_a + zeros_b > 0)
        out += fmt::format("  entries exactly 0: {} in {}, {} in {}\n", zeros_a, runs[0]->labels.title, zeros_b,
                           runs[1]->labels.title);
    return out;
}

// Two matrices of the lesson, entry by entry (e.g. a stacked layer and its collapse).
std::string show_same_matrices(const lesson& l, const show_item& item, const trace::style& st) {
    if (item.spec->get("runs")) bad(item, "give 'runs' with 'stage', or 'matrices', not both", "matrices");
    const auto names = need_strings(item, "matrices", 2);
    std::vector<const matrix*> m;
    for (const auto& n : names) {
        auto it = l.matrices.find(n);
        if (it == l.matrices.end()) bad(item, "matrix '" + n + "' is not defined", "matrices");
        m.push_back(&it->second);
    }
    if (m[0]->shape() != m[1]->shape()) bad(item, "the two matrices have different shapes", "matrices");
    double worst = 0;
    std::size_t differ = 0;
    for (std::size_t i = 0; i < m[0]->size(); ++i) {
        const double a = m[0]->data()[i], b = m[1]->data()[i];
        differ += a == b ? 0 : 1;
        worst = std::max(worst, std::fabs(a - b));
    }
    std::string out = st.heading(opt_string(item, "title", readable_name(names[0]) + " against " + readable_name(names[1]))) +
                      fmt::format("  [{} × {}]\n", m[0]->shape(0), m[0]->shape(1));
    // `within = 1e-12`: the two were summed in different orders (BLAS picks its kernel by
    // CPU), so only the bound is a property of the lesson; the count of differing last
    // bits is a property of the machine and is not printed.
    if (const auto* within = item.spec->get("within")) {
        const auto bound = within->value<double>();
        if (!bound || !(*bound > 0)) bad(item, "'within' must be a positive number, e.g. 1e-12", "within");
        if (worst <= *bound)
            return out + fmt::format("  equal up to rounding: all {} entries agree within {:g} (the order of the sums "
                                     "may change the last bits)\n",
                                     m[0]->size(), *bound);
    }
    if (differ == 0) out += fmt::format("  all {} entries are bit-for-bit identical\n", m[0]->size());
    else if (worst < 1e-12)
        out += fmt::format("  equal up to rounding: {} of {} entries differ in their last bits (largest |difference| < 1e-12)\n",
                           differ, m[0]->size());
    else out += fmt::format("  {} of {} entries differ; largest |difference| = {:.4f}\n", differ, m[0]->size(), worst);
    return out;
}

// The checks (show_kinds.hpp): what each kind refuses, found without drawing.

void check_mask_grid(const lesson& l, const show_item& item) {
    check_references(l, item);
    const bool_matrix& a = need_run(l, item).steps.attend;  // [n_q, n_k]
    if (item.spec->get("labels")) {
        if (a.shape(0) != a.shape(1)) bad(item, "'labels' needs a square mask (the same tokens on both sides)", "labels");
        (void)need_tokens(l, item, "labels", a.shape(0));
    }
}

void check_next_token(const lesson& l, const show_item& item) {
    check_references(l, item);
    const std::string name = need_string(item, "tokens");
    auto it = l.tokens.find(name);
    if (it == l.tokens.end()) bad(item, "token list '" + name + "' is not in [tokens]", "tokens");
    if (it->second.size() < 2) bad(item, "token list '" + name + "' needs at least 2 tokens", "tokens");
}

void check_same_numbers(const lesson& l, const show_item& item) {
    check_references(l, item);
    if (item.spec->get("matrices")) {
        if (item.spec->get("runs")) bad(item, "give 'runs' with 'stage', or 'matrices', not both", "matrices");
        const auto names = need_strings(item, "matrices", 2);
        if (l.matrices.at(names[0]).shape() != l.matrices.at(names[1]).shape())
            bad(item, "the two matrices have different shapes", "matrices");
        if (const auto* within = item.spec->get("within")) {
            const auto bound = within->value<double>();
            if (!bound || !(*bound > 0)) bad(item, "'within' must be a positive number, e.g. 1e-12", "within");
        }
        return;
    }
    if (!item.spec->get("stage")) bad(item, "needs 'runs' and 'stage', or 'matrices'");
    const auto names = need_strings(item, "runs", 2);
    const std::string stage_name = need_string(item, "stage");
    auto s = parse_head_stage(stage_name);
    if (!s) bad(item, "unknown stage '" + stage_name + "'" + stage_hint(stage_name) + " (expected one of " + stage_alias_list() + ")", "stage");
    if (stage_matrix(l.runs.at(names[0]).steps, *s).shape() != stage_matrix(l.runs.at(names[1]).steps, *s).shape())
        bad(item, "the two runs' " + stage_name + " have different shapes", "runs");
}

}  // namespace

std::vector<show_kind> mask_kinds() {
    return {
        {"mask_grid", show_mask_grid, {"run"}, {"labels", "title"},
         "the ✓/✗ grid of the mask a run applied (rows queries, columns keys)", check_mask_grid},
        {"next_token", show_next_token, {"tokens"}, {"title"},
         "each prefix of a token list and the next token it predicts (A → B, A B → C)", check_next_token},
        {"same_numbers", show_same_numbers, {}, {"runs", "stage", "matrices", "title", "within"},
         "whether two runs' stage is bit-for-bit the same, with the largest difference and the exact zeros", check_same_numbers},
    };
}

}  // namespace attn::lessons::show
