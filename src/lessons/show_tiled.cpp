// lessons/show_tiled.cpp — show kinds of lesson 16, the online softmax and
// FlashAttention's tiling: one query's running max, running sum and partial output
// block by block (`online_softmax`), the tiled output of every query against the
// one-shot output (`tiled_output`), and the memory each needs (`tiled_memory`).
// The numbers come from core/tiled.hpp, computed when shown.
#include <cmath>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "core/recipe.hpp"
#include "lessons/show_kinds.hpp"
#include "trace/number_format.hpp"
#include "trace/table.hpp"

namespace attn::lessons::show {

namespace {

std::size_t tile_of(const show_item& item) {
    const toml::node* n = item.spec->get("tile");
    if (!n) bad(item, "needs 'tile' (keys per block, a whole number)");
    if (!n->is_integer() || *n->value<int64_t>() < 1 || *n->value<int64_t>() > 65536)
        bad(item, "'tile' must be a whole number from 1 to 65536", "tile");
    return static_cast<std::size_t>(*n->value<int64_t>());
}

tiled_steps tiled_of(const attention_run& run, std::size_t tile, bool skip_rescale = false) {
    recipe_options o = recipe_of_run(run);
    o.tile = tile;
    o.skip_rescale = skip_rescale;
    return *attention_recipe_head(run.steps.q, run.steps.k, run.steps.v, o).tiled;
}

std::string block_name(const attention_run& run, std::size_t b, std::size_t tile) {
    const auto& kt = run.labels.key_tokens;
    const std::size_t lo = b * tile, hi = std::min(kt.size(), lo + tile) - 1;
    return lo == hi ? kt[lo] : kt[lo] + "–" + kt[hi];
}

// Same to the printed digits, and a bound on the largest difference. The count of
// bit-identical entries is not printed: it depends on the BLAS kernel of the machine.
std::string compare_line(const matrix& a, const matrix& b, int dp) {
    std::size_t same_printed = 0;
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        same_printed += trace::fixed(a.flat(i), dp) == trace::fixed(b.flat(i), dp) ? 1 : 0;
        worst = std::max(worst, std::fabs(a.flat(i) - b.flat(i)));
    }
    const std::string diff = worst < 1e-14 ? "any difference is below 1e-14 (rounding in the last bits)"
                                           : fmt::format("a largest difference of {:.1e}", worst);
    return fmt::format("  tiled against one-shot: {} of {} entries print the same to {} decimals;\n  {}.\n",
                       same_printed, a.size(), dp, diff);
}

std::string show_online_softmax(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item);
    const std::size_t tile = tile_of(item);
    const std::size_t i = need_query(run, item);
    const tiled_steps t = tiled_of(run, tile);
    const int dp = opt_decimals(item, 4);
    const std::string tok = run.labels.query_tokens[i];

    // Table 1: the running state after each block.
    trace::table s;
    s.title = opt_string(item, "title", fmt::format("Online softmax for \"{}\", blocks of {}", tok, tile));
    s.axes = "rows: key blocks";
    s.corner = "block";
    s.col_labels = {"block max", "m", "rescale", "l"};
    s.shape = fmt::format("[{} × 4]", t.blocks);
    for (std::size_t b = 0; b < t.blocks; ++b) {
        double block_max = -std::numeric_limits<double>::infinity();
        for (std::size_t j = b * tile; j < std::min(run.steps.n_k(), (b + 1) * tile); ++j)
            if (run.steps.attend(i, j)) block_max = std::max(block_max, run.steps.scores_masked(i, j));
        s.row_labels.push_back(block_name(run, b, tile));
        s.cells.push_back({std::isfinite(block_max) ? trace::fixed(block_max, dp) : "-inf",
                           std::isfinite(t.running_max(i, b)) ? trace::fixed(t.running_max(i, b), dp) : "-inf",
                           trace::fixed(t.correction(i, b), dp), trace::fixed(t.running_sum(i, b), dp)});
    }
    std::string out = trace::render(s, st);
    out += "  m = running max; rescale = exp(m_old − m_new), applied to l and o;\n"
           "  l = running sum of exp(s − m).\n\n";

    // Table 2: the partial output o after each block, not yet divided by l.
    matrix o({t.blocks, run.steps.d_v()});  // [blocks, d_v]
    std::vector<std::string> rows;
    for (std::size_t b = 0; b < t.blocks; ++b) {
        xt::view(o, b, xt::all()) = xt::view(t.partial_output, b, i, xt::all());
        rows.push_back(block_name(run, b, tile));
    }
    out += trace::render(trace::make_table("Partial output o after each block",
                                           "rows: key blocks", "o", rows,
                                           trace::dimension_labels(run.steps.d_v()), o, dp),
                         st);

    // The end: o / l against lesson 01's one-shot output, and the mistake of not rescaling.
    const matrix tiled_row = xt::view(t.output, xt::range(i, i + 1), xt::all());       // [1, d_v]
    const matrix once_row = xt::view(run.steps.output, xt::range(i, i + 1), xt::all());  // [1, d_v]
    const matrix wrong_row = xt::view(tiled_of(run, tile, true).output, xt::range(i, i + 1), xt::all());
    matrix both({3, run.steps.d_v()});  // [3, d_v]
    xt::view(both, 0, xt::all()) = xt::view(tiled_row, 0, xt::all());
    xt::view(both, 1, xt::all()) = xt::view(once_row, 0, xt::all());
    xt::view(both, 2, xt::all()) = xt::view(wrong_row, 0, xt::all());
    out += "\n" + trace::render(trace::make_table("Output for \"" + tok + "\"", "rows: how it was computed", "O",
                                                  {"o / l", "one-shot", "o not rescaled"},
                                                  trace::dimension_labels(run.steps.d_v()), both, dp),
                                st);
    out += compare_line(tiled_row, once_row, dp);
    return out;
}

std::string show_tiled_output(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item);
    const std::size_t tile = tile_of(item);
    const tiled_steps t = tiled_of(run, tile);
    const int dp = opt_decimals(item, 4);
    std::string out = trace::render(
        trace::make_table(opt_string(item, "title", fmt::format("Tiled output, blocks of {}", tile)),
                          "rows: queries · columns: dimensions", "O", run.labels.query_tokens,
                          trace::dimension_labels(run.steps.d_v()), t.output, dp),
        st);
    out += compare_line(t.output, run.steps.output, dp);
    return out;
}

std::string human_bytes(double b) {
    if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.1f} GiB", b / (1024.0 * 1024 * 1024));
    if (b >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
    if (b >= 1024.0) return fmt::format("{:.1f} KiB", b / 1024.0);
    return fmt::format("{:.0f} B", b);
}

std::string show_tiled_memory(const lesson&, const show_item& item, const trace::style& st) {
    const toml::array* sizes = item.spec->get("sizes") ? item.spec->get("sizes")->as_array() : nullptr;
    if (!sizes || sizes->empty()) bad(item, "needs 'sizes', a list of sequence lengths such as [5, 1024, 32768]", "sizes");
    const std::size_t tile = tile_of(item);
    trace::table t;
    t.title = opt_string(item, "title", fmt::format("Memory for the scores (8-byte numbers), blocks of {} keys", tile));
    t.axes = "rows: sequence length n";
    t.corner = "n";
    t.col_labels = {"one-shot n×n", "bytes", "online 2n+block", "bytes"};
    t.shape = fmt::format("[{} × 4]", sizes->size());
    for (const auto& e : *sizes) {
        if (!e.is_integer() || *e.value<int64_t>() < 1 || *e.value<int64_t>() > 10000000)
            bad(item, "'sizes' must hold whole numbers from 1 to 10000000", "sizes");
        const auto n = static_cast<double>(*e.value<int64_t>());
        // One block of scores is `tile` keys, or all n when the text is shorter than a block.
        const double full = n * n, online = 2.0 * n + std::min(n, static_cast<double>(tile));
        t.row_labels.push_back(std::to_string(*e.value<int64_t>()));
        t.cells.push_back({fmt::format("{:.0f}", full), human_bytes(8.0 * full), fmt::format("{:.0f}", online),
                           human_bytes(8.0 * online)});
    }
    return trace::render(t, st);
}

// The checks (show_kinds.hpp): what each kind refuses, found without drawing.

void check_tiled(const lesson& l, const show_item& item) {
    check_references(l, item);
    (void)tile_of(item);
}

void check_tiled_memory(const lesson& l, const show_item& item) {
    check_references(l, item);
    const toml::array* sizes = item.spec->get("sizes") ? item.spec->get("sizes")->as_array() : nullptr;
    if (!sizes || sizes->empty()) bad(item, "needs 'sizes', a list of sequence lengths such as [5, 1024, 32768]", "sizes");
    (void)tile_of(item);
    for (const auto& e : *sizes)
        if (!e.is_integer() || *e.value<int64_t>() < 1 || *e.value<int64_t>() > 10000000)
            bad(item, "'sizes' must hold whole numbers from 1 to 10000000", "sizes");
}

}  // namespace

std::vector<show_kind> tiled_kinds() {
    return {
        {"online_softmax", show_online_softmax, {"run", "tile", "token"}, {"decimals", "title"},
         "one query's online softmax block by block: running max, rescale, running sum, partial output", check_tiled},
        {"tiled_output", show_tiled_output, {"run", "tile"}, {"decimals", "title"},
         "the tiled forward's output for every query, compared with the one-shot output", check_tiled},
        {"tiled_memory", show_tiled_memory, {"sizes", "tile"}, {"title"},
         "numbers held for the scores: n×n one-shot against 2n + one block online", check_tiled_memory},
    };
}

}  // namespace attn::lessons::show
