// lessons/show_window.cpp — show kinds of lesson 19, local (sliding-window)
// attention: a run recomputed under a window mask, as a ✓/✗ grid, a stage table or
// one query's trace (`window_run`); the cost of full against windowed attention
// (`window_cost`); and how far back the last token reaches after L layers
// (`receptive_field`), counted by stacking the masks. The numbers come from
// core/window.hpp, computed when shown.
#include <fmt/format.h>

#include "core/mask.hpp"
#include "core/window.hpp"
#include "lessons/show_kinds.hpp"
#include "trace/explain.hpp"
#include "trace/stages.hpp"
#include "trace/table.hpp"

namespace attn::lessons::show {

namespace {

std::size_t whole(const show_item& item, const std::string& key, std::int64_t lo, std::int64_t hi) {
    const toml::node* n = item.spec->get(key);
    if (!n) bad(item, "needs '" + key + "' (a whole number)");
    if (!n->is_integer() || *n->value<int64_t>() < lo || *n->value<int64_t>() > hi)
        bad(item, fmt::format("'{}' must be a whole number from {} to {}", key, lo, hi), key);
    return static_cast<std::size_t>(*n->value<int64_t>());
}

bool causal_run(const attention_run& run) {
    if (run.kind == "causal") return true;
    const auto& a = run.steps.attend;
    for (std::size_t i = 0; i < a.shape(0); ++i)
        for (std::size_t j = i + 1; j < a.shape(1); ++j)
            if (a(i, j)) return false;
    return run.steps.n_q() == run.steps.n_k() && run.steps.n_q() > 1 && !xt::all(a);
}

std::string mask_grid(const attention_steps& s, const trace::run_labels& l, const std::string& title, const trace::style& st) {
    trace::table t;
    t.title = title;
    t.axes = "rows: queries · columns: keys";
    t.shape = fmt::format("[{} × {}]", s.n_q(), s.n_k());
    t.corner = "q \\ k";
    t.row_labels = l.query_tokens;
    t.col_labels = l.key_tokens;
    for (std::size_t i = 0; i < s.n_q(); ++i) {
        t.cells.emplace_back();
        for (std::size_t j = 0; j < s.n_k(); ++j) t.cells.back().push_back(s.attend(i, j) ? "✓" : "·");
    }
    return trace::render(t, st) + fmt::format("  {} of {} query–key pairs are visible (✓); · = outside the window\n",
                                              visible_pairs(s.attend), s.attend.size());
}

// The run's attention recomputed with its mask AND the window; `stage` = mask,
// trace (with `token`) or a stage name.
std::string show_window_run(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item);
    const std::size_t w = whole(item, "window", 0, 100000);
    const bool causal = causal_run(run);
    recipe_options o = recipe_of_run(run);
    o.mask = combine_masks(run.steps.attend, window_mask(run.steps.n_q(), run.steps.n_k(), w, causal));
    const attention_steps s = attention_recipe_head(run.steps.q, run.steps.k, run.steps.v, o).forward;
    trace::run_labels labels = run.labels;
    labels.title = opt_string(item, "title", fmt::format("Window {}{},", w, causal ? ", causal" : ""));
    const std::string stage = need_string(item, "stage");
    if (stage == "mask") return mask_grid(s, labels, labels.title + " who sees whom", st);
    if (stage == "trace") {
        const std::size_t i = need_query(run, item);
        return trace::explain_query(s, i, labels, st);
    }
    const auto id = parse_stage(stage);
    if (!id) bad(item, "'stage' must be mask, trace or a stage name such as weights" + stage_hint(stage), "stage");
    return trace::render(trace::stage_table(s, *id, labels, opt_decimals(item, -1)), st);
}

std::string show_window_cost(const lesson&, const show_item& item, const trace::style& st) {
    const toml::array* sizes = item.spec->get("sizes") ? item.spec->get("sizes")->as_array() : nullptr;
    if (!sizes || sizes->empty()) bad(item, "needs 'sizes', a list of sequence lengths such as [16, 4096, 131072]", "sizes");
    const std::size_t w = whole(item, "window", 0, 1000000), d = whole(item, "d", 1, 65536);
    trace::table t;
    t.title = opt_string(item, "title", fmt::format("Multiply-adds, causal, d = {}", d));
    t.axes = "rows: length n";
    t.corner = "n";
    t.col_labels = {"full causal", fmt::format("window {}", w), "ratio"};
    t.shape = fmt::format("[{} × 3]", sizes->size());
    for (const auto& e : *sizes) {
        if (!e.is_integer() || *e.value<int64_t>() < 1 || *e.value<int64_t>() > 10000000)
            bad(item, "'sizes' must hold whole numbers from 1 to 10000000", "sizes");
        const auto n = static_cast<std::size_t>(*e.value<int64_t>());
        const std::uint64_t full = windowed_attention_macs(n, n, true, d, d);
        const std::uint64_t win = windowed_attention_macs(n, w, true, d, d);
        t.row_labels.push_back(std::to_string(n));
        t.cells.push_back({std::to_string(full), std::to_string(win),
                           fmt::format("{:.1f}×", static_cast<double>(full) / static_cast<double>(win))});
    }
    return trace::render(t, st);
}

// Stack the causal window mask L times (boolean matrix product) and count how far
// back the last token's output can draw from, against the formula L·w.
std::string show_receptive_field(const lesson&, const show_item& item, const trace::style& st) {
    const std::size_t w = whole(item, "window", 1, 1000), layers = whole(item, "layers", 1, 64);
    const std::size_t n = whole(item, "tokens", 2, 2048);
    const bool_matrix m = window_mask(n, n, w, true);  // [n, n]
    bool_matrix reach = m;                             // [n, n] who can reach whom after L layers
    trace::table t;
    t.title = opt_string(item, "title", fmt::format("Reach of the last of {} tokens, w = {}", n, w));
    t.axes = "rows: layers";
    t.corner = "layers";
    t.col_labels = {"tokens back (counted)", "L · w"};
    t.shape = fmt::format("[{} × 2]", layers);
    for (std::size_t L = 1; L <= layers; ++L) {
        if (L > 1) {  // reach_L = reach_{L−1} ∘ mask: i reaches j through some k
            bool_matrix next = xt::zeros<bool>({n, n});
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t k = 0; k < n; ++k)
                    if (m(i, k))
                        for (std::size_t j = 0; j < n; ++j) next(i, j) = next(i, j) || reach(k, j);
            reach = next;
        }
        std::size_t first = n - 1;
        for (std::size_t j = 0; j < n; ++j)
            if (reach(n - 1, j)) {
                first = j;
                break;
            }
        t.row_labels.push_back(std::to_string(L));
        t.cells.push_back({std::to_string(n - 1 - first), std::to_string(receptive_field(w, L))});
    }
    return trace::render(t, st);
}

// The checks (show_kinds.hpp): what each kind refuses, found without drawing.

void check_window_run(const lesson& l, const show_item& item) {
    check_references(l, item);
    (void)whole(item, "window", 0, 100000);
    const std::string stage = need_string(item, "stage");
    if (stage == "trace") (void)need_query(need_run(l, item), item);
    else if (stage != "mask" && !parse_stage(stage))
        bad(item, "'stage' must be mask, trace or a stage name such as weights" + stage_hint(stage), "stage");
}

// 'sizes': a non-empty list of whole numbers from 1 to 10000000.
void check_window_cost(const lesson& l, const show_item& item) {
    check_references(l, item);
    const toml::array* sizes = item.spec->get("sizes") ? item.spec->get("sizes")->as_array() : nullptr;
    if (!sizes || sizes->empty()) bad(item, "needs 'sizes', a list of sequence lengths such as [16, 4096, 131072]", "sizes");
    (void)whole(item, "window", 0, 1000000);
    (void)whole(item, "d", 1, 65536);
    for (const auto& e : *sizes)
        if (!e.is_integer() || *e.value<int64_t>() < 1 || *e.value<int64_t>() > 10000000)
            bad(item, "'sizes' must hold whole numbers from 1 to 10000000", "sizes");
}

void check_receptive_field(const lesson& l, const show_item& item) {
    check_references(l, item);
    (void)whole(item, "window", 1, 1000);
    (void)whole(item, "layers", 1, 64);
    (void)whole(item, "tokens", 2, 2048);
}

}  // namespace

std::vector<show_kind> window_kinds() {
    return {
        {"window_run", show_window_run, {"run", "window", "stage"}, {"token", "decimals", "title"},
         "a run recomputed under a sliding window: its mask (stage = mask), one query's trace (trace) or a stage", check_window_run},
        {"window_cost", show_window_cost, {"sizes", "window", "d"}, {"title"},
         "multiply-adds of full causal attention against a window, for several n", check_window_cost},
        {"receptive_field", show_receptive_field, {"window", "layers", "tokens"}, {"title"},
         "how far back the last token reaches after L stacked window layers, counted and as L·w", check_receptive_field},
    };
}

}  // namespace attn::lessons::show
