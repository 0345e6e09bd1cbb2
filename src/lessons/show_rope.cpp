// lessons/show_rope.cpp — show kinds of lesson 17, rotary position embeddings:
// the rotation of every pair of one token (`rope_rotation`), scores for pairs of
// positions with the same distance (`rope_shift`, against sinusoidal P added to the
// vectors), and a run's scores or weights with q and k rotated (`rope_run`). The
// numbers come from core/rope.hpp, computed when shown.
#include <cmath>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "core/positional.hpp"
#include "core/rope.hpp"
#include "lessons/show_kinds.hpp"
#include "trace/explain.hpp"
#include "trace/number_format.hpp"
#include "trace/stages.hpp"
#include "trace/table.hpp"

namespace attn::lessons::show {

namespace {

double base_of(const show_item& item) {
    const toml::node* n = item.spec->get("base");
    if (!n) return 10000.0;
    if (!n->is_number() || !(io::toml_number(*n) > 1.0)) bad(item, "'base' must be a number > 1", "base");
    return io::toml_number(*n);
}

std::size_t row_of(const lesson& l, const show_item& item, const matrix& m, const std::string& key = "token") {
    const auto& toks = need_tokens(l, item, "rows", m.shape(0));
    const std::string t = need_string(item, key);
    for (std::size_t i = 0; i < toks.size(); ++i)
        if (toks[i] == t) return i;
    bad(item, "'" + key + "' = '" + t + "' is not one of the rows' tokens", key);
}

const matrix& even_matrix(const lesson& l, const show_item& item, const std::string& key) {
    const matrix& m = need_matrix(l, item, key);
    if (m.shape(1) % 2 != 0) bad(item, "rotary embeddings turn pairs of columns: '" + key + "' has an odd width", key);
    return m;
}

// Every pair of one token at its position: frequency, angle, cos, sin, before and after.
std::string show_rope_rotation(const lesson& l, const show_item& item, const trace::style& st) {
    const matrix& x = even_matrix(l, item, "matrix");
    const std::size_t p = row_of(l, item, x);
    const double base = base_of(item);
    const rope_steps r = rotary_embed(x, base);
    const int dp = opt_decimals(item, 4);
    trace::table t;
    t.title = opt_string(item, "title", fmt::format("Rotating \"{}\" at position {}, base {:g}", need_string(item, "token"), p,
                                                    base));
    t.axes = "rows: pairs of columns";
    t.corner = "pair";
    t.col_labels = {"freq", "θ = p·freq", "cos θ", "sin θ", "before", "after"};
    t.shape = fmt::format("[{} × 6]", x.shape(1) / 2);
    for (std::size_t i = 0; i < x.shape(1) / 2; ++i) {
        t.row_labels.push_back(fmt::format("d{},d{}", 2 * i, 2 * i + 1));
        t.cells.push_back({trace::fixed(r.frequencies(i), dp), trace::fixed(r.angles(p, i), dp), trace::fixed(r.cos(p, i), dp),
                           trace::fixed(r.sin(p, i), dp),
                           "(" + trace::compact(x(p, 2 * i), 2) + ", " + trace::compact(x(p, 2 * i + 1), 2) + ")",
                           "(" + trace::fixed(r.rotated(p, 2 * i), dp) + ", " + trace::fixed(r.rotated(p, 2 * i + 1), dp) + ")"});
    }
    return trace::render(t, st);
}

// q·k with q at position m and k at position n: rotated, and with sinusoidal P added.
std::string show_rope_shift(const lesson& l, const show_item& item, const trace::style& st) {
    const matrix& qm = even_matrix(l, item, "q");
    const matrix& km = even_matrix(l, item, "k");
    if (qm.shape(1) != km.shape(1)) bad(item, "'q' and 'k' must have the same width", "k");
    const std::size_t qi = row_of(l, item, qm, "q_token"), ki = row_of(l, item, km, "k_token");
    const matrix q = xt::view(qm, xt::range(qi, qi + 1), xt::all()), k = xt::view(km, xt::range(ki, ki + 1), xt::all());
    const toml::array* ps = item.spec->get("positions") ? item.spec->get("positions")->as_array() : nullptr;
    if (!ps || ps->empty()) bad(item, "needs 'positions', a list of [m, n] pairs such as [[4, 1], [5, 2]]", "positions");
    const double base = base_of(item);
    const std::size_t d = q.shape(1);
    trace::table t;
    t.title = opt_string(item, "title", "One q·k at several positions");
    t.axes = "rows: positions m of q, n of k";
    t.corner = "m, n";
    t.col_labels = {"m − n", "rotated q·k", "with P added"};
    t.shape = fmt::format("[{} × 3]", ps->size());
    for (const auto& e : *ps) {
        const toml::array* pair = e.as_array();
        if (!pair || pair->size() != 2 || !(*pair)[0].is_integer() || !(*pair)[1].is_integer() ||
            *(*pair)[0].value<int64_t>() < 0 || *(*pair)[1].value<int64_t>() < 0 || *(*pair)[0].value<int64_t>() > 100000 ||
            *(*pair)[1].value<int64_t>() > 100000)
            bad(item, "'positions' must hold pairs [m, n] of whole numbers from 0 to 100000", "positions");
        const auto m = *(*pair)[0].value<int64_t>(), n = *(*pair)[1].value<int64_t>();
        const double rot = xt::sum(rotary_embed_at(q, {static_cast<double>(m)}, base).rotated *
                                   rotary_embed_at(k, {static_cast<double>(n)}, base).rotated)();
        const matrix pm = sinusoidal_positions(1, d, base, static_cast<std::size_t>(m));
        const matrix pn = sinusoidal_positions(1, d, base, static_cast<std::size_t>(n));
        const double added = xt::sum((q + pm) * (k + pn))();
        t.row_labels.push_back(fmt::format("{}, {}", m, n));
        t.cells.push_back({std::to_string(m - n), trace::fixed(rot, 4), trace::fixed(added, 4)});
    }
    return trace::render(t, st);
}

// A run's scores or weights with its q and k rotated by position (0, 1, …).
std::string show_rope_run(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item);
    if (run.steps.d_k() % 2 != 0) bad(item, "rotary embeddings turn pairs of columns: the run's d_k is odd", "run");
    const std::string stage = need_string(item, "stage");
    const auto s = parse_stage(stage);
    if (!s && stage != "trace")
        bad(item, "'stage' must be trace (with 'token') or a stage name such as raw or weights" + stage_hint(stage), "stage");
    recipe_options o = recipe_of_run(run);
    o.rope = rope_option{base_of(item)};
    const attention_steps r = attention_recipe_head(run.steps.q, run.steps.k, run.steps.v, o).forward;
    trace::run_labels labels = run.labels;
    labels.title = opt_string(item, "title", "Rotated,");
    if (!s) return trace::explain_query(r, need_query(run, item), labels, st);  // one query, q and k rotated
    return trace::render(trace::stage_table(r, *s, labels, opt_decimals(item, -1)), st);
}

// The checks (show_kinds.hpp): what each kind refuses, found without drawing.

void check_rope_rotation(const lesson& l, const show_item& item) {
    check_references(l, item);
    (void)row_of(l, item, even_matrix(l, item, "matrix"));
    (void)base_of(item);
}

void check_rope_shift(const lesson& l, const show_item& item) {
    check_references(l, item);
    const matrix& qm = even_matrix(l, item, "q");
    const matrix& km = even_matrix(l, item, "k");
    if (qm.shape(1) != km.shape(1)) bad(item, "'q' and 'k' must have the same width", "k");
    (void)row_of(l, item, qm, "q_token");
    (void)row_of(l, item, km, "k_token");
    const toml::array* ps = item.spec->get("positions") ? item.spec->get("positions")->as_array() : nullptr;
    if (!ps || ps->empty()) bad(item, "needs 'positions', a list of [m, n] pairs such as [[4, 1], [5, 2]]", "positions");
    for (const auto& e : *ps) {
        const toml::array* pair = e.as_array();
        if (!pair || pair->size() != 2 || !(*pair)[0].is_integer() || !(*pair)[1].is_integer() ||
            *(*pair)[0].value<int64_t>() < 0 || *(*pair)[1].value<int64_t>() < 0 || *(*pair)[0].value<int64_t>() > 100000 ||
            *(*pair)[1].value<int64_t>() > 100000)
            bad(item, "'positions' must hold pairs [m, n] of whole numbers from 0 to 100000", "positions");
    }
    (void)base_of(item);
}

void check_rope_run(const lesson& l, const show_item& item) {
    check_references(l, item);
    if (need_run(l, item).steps.d_k() % 2 != 0)
        bad(item, "rotary embeddings turn pairs of columns: the run's d_k is odd", "run");
    const std::string stage = need_string(item, "stage");
    if (!parse_stage(stage) && stage != "trace")
        bad(item, "'stage' must be trace (with 'token') or a stage name such as raw or weights" + stage_hint(stage), "stage");
    if (stage == "trace") (void)need_query(need_run(l, item), item);
    (void)base_of(item);
}

}  // namespace

std::vector<show_kind> rope_kinds() {
    return {
        {"rope_rotation", show_rope_rotation, {"matrix", "rows", "token"}, {"base", "decimals", "title"},
         "every pair of columns of one token turned by its rotary angle", check_rope_rotation},
        {"rope_shift", show_rope_shift, {"q", "k", "rows", "q_token", "k_token", "positions"}, {"base", "title"},
         "one q·k at several pairs of positions: rotated (depends on m − n only) and with P added", check_rope_shift},
        {"rope_run", show_rope_run, {"run", "stage"}, {"token", "base", "decimals", "title"},
         "a stage of a run computed with q and k rotated by position", check_rope_run},
    };
}

}  // namespace attn::lessons::show
