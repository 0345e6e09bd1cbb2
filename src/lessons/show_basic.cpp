// lessons/show_basic.cpp — the basic show kinds: a matrix, a stage of a run, the
// seed's Q ⊙ scale table, two runs side by side, and the per-token trace.
#include <fmt/format.h>

#include "lessons/readable_name.hpp"
#include "lessons/show_kinds.hpp"
#include "trace/explain.hpp"
#include "trace/heatmap.hpp"
#include "trace/number_format.hpp"
#include "trace/stages.hpp"
#include "trace/table.hpp"

namespace attn::lessons::show {

namespace {

std::string show_matrix(const lesson& l, const show_item& item, const trace::style& st) {
    const matrix& m = need_matrix(l, item);
    const std::string name = need_string(item, "matrix");
    std::vector<std::string> rows(m.shape(0));
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = "r" + std::to_string(i);
    if (item.spec->get("rows")) rows = trace::told_apart(need_tokens(l, item, "rows", m.shape(0)));  // the₀ … the₃
    if (item.spec->get("row_labels")) {
        if (item.spec->get("rows")) bad(item, "give 'rows' (a token list) or 'row_labels', not both", "row_labels");
        rows = need_strings(item, "row_labels", m.shape(0));
    }
    std::vector<std::string> cols = trace::dimension_labels(m.shape(1));
    if (item.spec->get("columns")) cols = trace::told_apart(need_tokens(l, item, "columns", m.shape(1)));
    if (item.spec->get("column_labels")) {
        if (item.spec->get("columns")) bad(item, "give 'columns' (a token list) or 'column_labels', not both", "column_labels");
        cols = need_strings(item, "column_labels", m.shape(1));
    }
    const int dp = opt_decimals(item, 1);
    const bool plain = readable_name(name) == name;  // a symbol ("Q", "K_enc") is its own corner
    const std::string title = opt_string(item, "title", readable_name(name));
    const std::string axes = opt_string(item, "axes", "rows: tokens · columns: dimensions");
    trace::table t = trace::make_table(title, axes, opt_string(item, "corner", plain ? name : ""), rows, cols, m, dp);
    // A difference (Δ) prints with its sign always, "+0.0147" and "-0.0106", as the
    // compare kind's Δ column does: one sign style for every Δ of the course.
    if (opt_bool(item, "signed", false) && t.cells.size() == m.shape(0))
        for (std::size_t i = 0; i < m.shape(0); ++i)
            if (t.cells[i].size() == m.shape(1))
                for (std::size_t j = 0; j < m.shape(1); ++j) t.cells[i][j] = trace::signed_fixed(m(i, j), dp);
    return trace::render(t, st);
}

std::string show_stage(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item);
    const std::string stage_name = need_string(item, "stage");
    auto s = parse_head_stage(stage_name);
    if (!s) bad(item, "unknown stage '" + stage_name + "'" + stage_hint(stage_name) + " (expected one of " + stage_alias_list() + ")", "stage");
    trace::table t = trace::stage_table(run.steps, *s, run.labels, opt_decimals(item, -1));
    if (item.spec->get("title")) t.title = need_string(item, "title");
    const bool weights = *s == stage::weights;
    std::string out = trace::render(t, st);
    if (weights || *s == stage::z)
        for (std::size_t i = 0; i < run.steps.n_q(); ++i)
            if (run.steps.row_fully_masked[i])
                out += "  note: query '" + run.labels.query_tokens[i] +
                       "' may see no key at all: its weights are 0 (not 0/0) and its output is 0\n";
    return out;
}

// A run's weights (or another score stage) as `attn trace` draws them: the
// trace floor's heatmap renderer, shades ░▒▓█ without colour. Or any matrix of
// the lesson (a difference of two runs' weights, say) with its token labels,
// shaded over its own min..max.
std::string show_heatmap(const lesson& l, const show_item& item, const trace::style& st) {
    trace::heatmap_input in;
    in.width = st.width;
    if (item.spec->get("matrix")) {
        if (item.spec->get("run") || item.spec->get("stage"))
            bad(item, "give 'run' (and 'stage') or 'matrix' (with 'rows' and 'columns'), not both", "matrix");
        const matrix& m = need_matrix(l, item);
        in.title = opt_string(item, "title", readable_name(need_string(item, "matrix")));
        in.row_labels = trace::told_apart(need_tokens(l, item, "rows", m.shape(0)));
        in.col_labels = trace::told_apart(need_tokens(l, item, "columns", m.shape(1)));
        in.values = &m;
        return trace::render_heatmap(in, trace::heatmap_style_for(st.color));
    }
    if (!item.spec->get("run")) bad(item, "needs 'run' (a run's stage) or 'matrix' (with 'rows' and 'columns')");
    const attention_run& run = need_run(l, item);
    const std::string stage_name = opt_string(item, "stage", "weights");
    const matrix* values = nullptr;  // [n_q, n_k]
    if (stage_name == "weights") values = &run.steps.weights;
    else if (stage_name == "scaled") values = &run.steps.scores_scaled;
    else if (stage_name == "raw") values = &run.steps.scores_raw;
    else bad(item, "stage '" + stage_name + "': a heatmap draws raw, scaled or weights", "stage");
    in.title = opt_string(item, "title", "Heatmap of the " + stage_name);
    in.row_labels = trace::told_apart(run.labels.query_tokens);  // equal tokens apart, as in every trace
    in.col_labels = trace::told_apart(run.labels.key_tokens);
    in.values = values;
    in.attend = &run.steps.attend;
    in.unit_range = stage_name == "weights" && !opt_bool(item, "stretch", false);
    return trace::render_heatmap(in, trace::heatmap_style_for(st.color));
}

// The seed's "Step 1: Decoder Queries" table: Token | Q | × scale | Q_dec.
std::string show_scale_columns(const lesson& l, const show_item& item, const trace::style& st) {
    const std::string name = need_string(item, "matrix");
    const toml::table* d = l.document ? (*l.document)["derived"][name].as_table() : nullptr;
    if (!d || (*d)["op"].value_or(std::string()) != "scale_columns")
        bad(item, "matrix '" + name + "' is not a [derived] scale_columns matrix", "matrix");
    const std::string of = (*d)["of"].value_or(std::string());
    const matrix& src = l.matrices.at(of);
    const matrix& dst = need_matrix(l, item);
    std::vector<double> by;
    for (const auto& e : *(*d)["by"].as_array()) by.push_back(io::toml_number(e));
    const auto& rows = need_tokens(l, item, "rows", dst.shape(0));
    const std::string scale = trace::bracketed(by);
    trace::table t;
    t.title = opt_string(item, "title", name + " = " + of + " ⊙ " + scale);
    t.axes = "rows: tokens";
    t.shape = "[" + std::to_string(dst.shape(0)) + " × " + std::to_string(dst.shape(1)) + "]";
    t.corner = "Token";
    t.col_labels = {of, "× scale", name};
    t.row_labels = rows;
    for (std::size_t i = 0; i < dst.shape(0); ++i)
        t.cells.push_back({trace::bracketed_row(src, i), "× " + scale, trace::bracketed_row(dst, i)});
    return trace::render(t, st);
}

// Two runs' weights for one query, side by side, with Δ = first − second.
std::string show_compare(const lesson& l, const show_item& item, const trace::style& st) {
    const auto names = need_strings(item, "runs", 2);
    auto run_named = [&](const std::string& n) -> const attention_run& {
        auto it = l.runs.find(n);
        if (it == l.runs.end()) bad(item, "run '" + n + "' is not in [runs]", "runs");
        return it->second;
    };
    const attention_run& a = run_named(names[0]);
    const attention_run& b = run_named(names[1]);
    if (a.labels.key_tokens != b.labels.key_tokens) bad(item, "the two runs must attend over the same keys", "runs");
    const std::string token = need_string(item, "token");
    std::size_t ia = 0, ib = 0;
    try {
        ia = find_query(a, token);
        ib = find_query(b, token);
    } catch (const error& e) {  // the token names no query
        bad(item, e.what(), "token");
    }
    trace::table t;
    t.title = opt_string(item, "title", fmt::format("{} vs {} for '{}'", a.labels.title, b.labels.title, token));
    t.axes = "rows: " + a.labels.key_side + " · Δ = " + a.labels.title + " − " + b.labels.title;
    t.shape = "[" + std::to_string(a.steps.n_k()) + " × 4]";
    t.corner = "Key";
    t.col_labels = {"Scaled score", a.labels.title + " weight", b.labels.title + " weight", "Δ"};
    t.row_labels = a.labels.key_tokens;
    for (std::size_t j = 0; j < a.steps.n_k(); ++j)
        t.cells.push_back({trace::fixed(a.steps.scores_scaled(ia, j), 3), trace::fixed(a.steps.weights(ia, j), 4),
                           trace::fixed(b.steps.weights(ib, j), 4),
                           trace::signed_fixed(a.steps.weights(ia, j) - b.steps.weights(ib, j), 4)});
    std::string out = trace::render(t, st);
    out += fmt::format("  O[{}] {} = {}\n", token, a.labels.title, trace::bracketed_row(a.steps.output, ia, 4));
    out += fmt::format("  O[{}] {} = {}\n", token, b.labels.title, trace::bracketed_row(b.steps.output, ib, 4));
    return out;
}

std::string show_trace(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item);
    return trace::explain_query(run.steps, need_query(run, item), run.labels, st);
}

// The checks (show_kinds.hpp): what each kind refuses, found without drawing.

void check_matrix(const lesson& l, const show_item& item) {
    check_references(l, item);
    (void)opt_bool(item, "signed", false);
    const matrix& m = need_matrix(l, item);
    if (item.spec->get("row_labels")) {
        if (item.spec->get("rows")) bad(item, "give 'rows' (a token list) or 'row_labels', not both", "row_labels");
        (void)need_strings(item, "row_labels", m.shape(0));
    }
    if (item.spec->get("column_labels")) {
        if (item.spec->get("columns")) bad(item, "give 'columns' (a token list) or 'column_labels', not both", "column_labels");
        (void)need_strings(item, "column_labels", m.shape(1));
    }
}

void check_stage(const lesson& l, const show_item& item) {
    check_references(l, item);
    const std::string stage_name = need_string(item, "stage");
    auto s = parse_head_stage(stage_name);
    if (!s) bad(item, "unknown stage '" + stage_name + "'" + stage_hint(stage_name) + " (expected one of " + stage_alias_list() + ")", "stage");
}

void check_heatmap(const lesson& l, const show_item& item) {
    if (item.spec->get("matrix")) {
        if (item.spec->get("run") || item.spec->get("stage"))
            bad(item, "give 'run' (and 'stage') or 'matrix' (with 'rows' and 'columns'), not both", "matrix");
        (void)need_string(item, "rows");
        (void)need_string(item, "columns");
    } else if (!item.spec->get("run")) {
        bad(item, "needs 'run' (a run's stage) or 'matrix' (with 'rows' and 'columns')");
    } else {
        const std::string stage_name = opt_string(item, "stage", "weights");
        if (stage_name != "weights" && stage_name != "scaled" && stage_name != "raw")
            bad(item, "stage '" + stage_name + "': a heatmap draws raw, scaled or weights", "stage");
    }
    (void)opt_bool(item, "stretch", false);
    check_references(l, item);
}

void check_scale_columns(const lesson& l, const show_item& item) {
    const std::string name = need_string(item, "matrix");
    const toml::table* d = l.document ? (*l.document)["derived"][name].as_table() : nullptr;
    if (!d || (*d)["op"].value_or(std::string()) != "scale_columns")
        bad(item, "matrix '" + name + "' is not a [derived] scale_columns matrix", "matrix");
    check_references(l, item);
}

void check_compare(const lesson& l, const show_item& item) {
    check_references(l, item);
    const auto names = need_strings(item, "runs", 2);
    const attention_run& a = l.runs.at(names[0]);
    const attention_run& b = l.runs.at(names[1]);
    if (a.labels.key_tokens != b.labels.key_tokens) bad(item, "the two runs must attend over the same keys", "runs");
    const std::string token = need_string(item, "token");  // its own problem is reported as is
    try {
        (void)find_query(a, token);
        (void)find_query(b, token);
    } catch (const error& e) {  // the token names no query
        bad(item, e.what(), "token");
    }
}

}  // namespace

std::vector<show_kind> basic_kinds() {
    return {
        {"heatmap", show_heatmap, {}, {"run", "stage", "stretch", "matrix", "rows", "columns", "title"},
         "a run's weights (or raw/scaled scores), or any matrix with its token labels, as a heatmap", check_heatmap},
        {"matrix", show_matrix, {"matrix"}, {"rows", "row_labels", "columns", "column_labels", "decimals", "title", "axes", "corner", "signed"},
         "a matrix of the lesson (input, derived or a run's stage 'run.weights') as a labeled table", check_matrix},
        {"stage", show_stage, {"run", "stage"}, {"decimals", "title"},
         "one stage of a run: q, k, v, raw, scaled, masked, weights or output", check_stage},
        {"scale_columns", show_scale_columns, {"matrix", "rows"}, {"title"},
         "the Token | Q | × scale | Q_dec table of a [derived] scale_columns matrix", check_scale_columns},
        {"compare", show_compare, {"runs", "token"}, {"title"},
         "two runs' weights for one query side by side, with Δ = first − second", check_compare},
        {"trace", show_trace, {"run", "token"}, {}, "every number of one query, term by term"},
    };
}

}  // namespace attn::lessons::show
