// lessons/show_reading.cpp — show kinds that read a weight matrix for the student:
// where each query looks most (and how sure it is), and the weights of one query
// laid out over the grid of image patches they came from.
#include <algorithm>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "lessons/readable_name.hpp"
#include "lessons/show_kinds.hpp"
#include "trace/number_format.hpp"
#include "trace/table.hpp"

namespace attn::lessons::show {

namespace {

// Per query row: the strongest key, the runner-up and the row sum.
std::string show_strongest(const lesson& l, const show_item& item, const trace::style& st) {
    const matrix* w = nullptr;  // [n_q, n_k]
    std::vector<std::string> rows, cols;
    std::string title, query_side = "queries", key_side = "keys";
    if (item.spec->get("run") && item.spec->get("matrix")) bad(item, "give 'run' or 'matrix', not both", "matrix");
    if (item.spec->get("run")) {
        const attention_run& r = need_run(l, item);
        w = &r.steps.weights;
        rows = r.labels.query_tokens;
        cols = r.labels.key_tokens;
        title = r.labels.title;
        query_side = r.labels.query_side;
        key_side = r.labels.key_side;
    } else if (item.spec->get("matrix")) {
        w = &need_matrix(l, item);
        rows = need_tokens(l, item, "rows", w->shape(0));
        cols = need_tokens(l, item, "columns", w->shape(1));
        title = readable_name(need_string(item, "matrix"));
    } else {
        bad(item, "needs 'run' (a run's weights) or 'matrix' with 'rows' and 'columns' (a weight matrix)");
    }
    const int dp = opt_decimals(item, 4);
    trace::table t;
    t.title = opt_string(item, "title", "Reading " + title + ": where each query looks");
    t.axes = "rows: " + query_side + " · the two " + key_side + " with the largest weights of each row";
    // The shape in the title is the weights' (the summary's own [n × 5] would read as a
    // second shape of the same weights).
    t.shape = "[" + std::to_string(w->shape(0)) + " × " + std::to_string(w->shape(1)) + "]";
    t.corner = "query";
    t.col_labels = {"looks most at", "weight", "then at", "weight", "row sum"};
    t.row_labels = rows;
    for (std::size_t i = 0; i < w->shape(0); ++i) {
        std::vector<std::size_t> order(w->shape(1));
        std::iota(order.begin(), order.end(), std::size_t{0});
        // Ties keep the earlier key first, so the reading is deterministic.
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return (*w)(i, a) > (*w)(i, b); });
        double sum = 0;
        for (std::size_t j = 0; j < w->shape(1); ++j) sum += (*w)(i, j);
        // A key with weight exactly 0 (blocked, or padding) is never a runner-up.
        const bool two = order.size() > 1 && (*w)(i, order[1]) > 0.0;
        t.cells.push_back({cols[order[0]], trace::fixed((*w)(i, order[0]), dp), two ? cols[order[1]] : "none",
                           two ? trace::fixed((*w)(i, order[1]), dp) : "—", trace::fixed(sum, dp)});
    }
    return trace::render(t, st);
}

// The item's 'grid' = [rows, columns], checked against the run's keys (one patch a key).
std::pair<std::size_t, std::size_t> read_grid(const show_item& item, const attention_run& r) {
    const toml::array* g = item.spec->get("grid") ? item.spec->get("grid")->as_array() : nullptr;
    if (!g || g->size() != 2 || !g->get(0)->is_integer() || !g->get(1)->is_integer() ||
        *g->get(0)->value<int64_t>() <= 0 || *g->get(1)->value<int64_t>() <= 0)
        bad(item, "needs 'grid' = [rows, columns], two positive integers", "grid");
    const auto gr = static_cast<std::size_t>(*g->get(0)->value<int64_t>());
    const auto gc = static_cast<std::size_t>(*g->get(1)->value<int64_t>());
    if (gr * gc != r.steps.n_k())
        bad(item, fmt::format("grid {} × {} has {} patches but run '{}' has {} keys", gr, gc, gr * gc, r.name,
                              r.steps.n_k()),
            "grid");
    return {gr, gc};
}

// The weights of a query over image patches, laid out as the image grid.
std::string show_patch_grid(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& r = need_run(l, item);
    const auto [gr, gc] = read_grid(item, r);
    std::vector<std::size_t> queries;
    if (item.spec->get("token")) {
        const std::string token = need_string(item, "token");  // its own problem is reported as is
        try {
            queries.push_back(find_query(r, token));
        } catch (const error& e) {
            bad(item, e.what(), "token");
        }
    } else {
        queries.resize(r.steps.n_q());
        std::iota(queries.begin(), queries.end(), std::size_t{0});
    }
    std::string out;
    for (std::size_t q : queries) {
        trace::table t;
        t.title = fmt::format("'{}' looking at the {} × {} image", r.labels.query_tokens[q], gr, gc);
        t.axes = "the image's patch rows and columns · each cell: patch, weight";
        t.shape = fmt::format("[{} × {}]", gr, gc);
        t.corner = "";
        for (std::size_t c = 0; c < gc; ++c) t.col_labels.push_back("col " + std::to_string(c));
        for (std::size_t rr = 0; rr < gr; ++rr) {
            t.row_labels.push_back("row " + std::to_string(rr));
            t.cells.emplace_back();
            for (std::size_t c = 0; c < gc; ++c) {
                const std::size_t j = rr * gc + c;
                t.cells.back().push_back(r.labels.key_tokens[j] + " " + trace::fixed(r.steps.weights(q, j), 4));
            }
        }
        out += (out.empty() ? "" : "\n") + trace::render(t, st);
    }
    return out;
}

// The checks (show_kinds.hpp): what each kind refuses, found without drawing.

void check_strongest(const lesson& l, const show_item& item) {
    if (item.spec->get("run") && item.spec->get("matrix")) bad(item, "give 'run' or 'matrix', not both", "matrix");
    if (item.spec->get("matrix")) {
        (void)need_string(item, "rows");
        (void)need_string(item, "columns");
    } else if (!item.spec->get("run")) {
        bad(item, "needs 'run' (a run's weights) or 'matrix' with 'rows' and 'columns' (a weight matrix)");
    }
    check_references(l, item);
}

void check_patch_grid(const lesson& l, const show_item& item) {
    check_references(l, item);
    const attention_run& r = need_run(l, item);
    read_grid(item, r);
}

}  // namespace

std::vector<show_kind> reading_kinds() {
    return {
        {"strongest", show_strongest, {}, {"run", "matrix", "rows", "columns", "decimals", "title"},
         "for each query, the key it weights most, the runner-up and the row sum", check_strongest},
        {"patch_grid", show_patch_grid, {"run", "grid"}, {"token"},
         "a query's weights over image patches, laid out as the image grid", check_patch_grid},
    };
}

}  // namespace attn::lessons::show
