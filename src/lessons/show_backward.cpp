// lessons/show_backward.cpp — show kinds of lesson 15, the backward pass: one
// gradient of a run as a table (`gradient`), one query's softmax backward term by
// term (`softmax_backward_row`), and lesson 02's saturation as a gradient norm
// (`saturation`). The numbers come from core/backward.hpp, computed when shown.
#include <cmath>

#include <fmt/format.h>

#include "core/recipe.hpp"
#include "core/stages.hpp"
#include "lessons/show_kinds.hpp"
#include "trace/number_format.hpp"
#include "trace/table.hpp"

namespace attn::lessons::show {

namespace {

std::int64_t whole_number(const show_item& item, const std::string& key, std::int64_t lo, std::int64_t hi) {
    const toml::node* n = item.spec->get(key);
    if (!n) bad(item, "needs '" + key + "' (a whole number)");
    if (!n->is_integer() || *n->value<int64_t>() < lo || *n->value<int64_t>() > hi)
        bad(item, fmt::format("'{}' must be a whole number from {} to {}", key, lo, hi), key);
    return *n->value<int64_t>();
}

// The run's forward and dL/dO (the matrix named by `grad`) through the backward pass.
attention_grads grads_of(const lesson& l, const show_item& item, const attention_run& run) {
    const matrix& d_out = need_matrix(l, item, "grad");
    if (d_out.shape(0) != run.steps.n_q() || d_out.shape(1) != run.steps.d_v())
        bad(item, fmt::format("'grad' must be [{} × {}] like the run's output, found [{} × {}]", run.steps.n_q(),
                              run.steps.d_v(), d_out.shape(0), d_out.shape(1)),
            "grad");
    recipe_options o;
    o.mask = run.options.mask;
    if (run.options.bias) o.bias = {*run.options.bias};
    o.masked_fill = run.options.masked_fill;
    o.scale_divisor = run.options.scale_divisor;
    o.grad_output = d_out;
    return *attention_recipe_head(run.steps.q, run.steps.k, run.steps.v, o).grads;
}

// The lesson's words for each gradient stage; its name and axes are the vocabulary's
// (core/stages.hpp).
struct gradient_view {
    stage id;               // named as lesson files write it: the export name
    const char* caption;    // what the table title says
    const char* symbol;     // the table's corner
    const matrix attention_grads::*field;

    const char* name() const { return stage_info_of(id).hook; }
    bool key_rows() const { return matrix_axes_of(id).rows == "key_pos"; }     // dV, dK
    bool key_columns() const { return matrix_axes_of(id).cols == "key_pos"; }  // dA, dS
};

const std::vector<gradient_view>& gradient_views() {
    static const std::vector<gradient_view> v{
        {stage::grad_z, "dL/dO, arriving at the output", "dO", &attention_grads::grad_output},
        {stage::grad_v, "dV = Aᵀ dO", "dV", &attention_grads::grad_v},
        {stage::grad_pattern, "dA = dO Vᵀ", "dA", &attention_grads::grad_weights},
        {stage::grad_attn_scores, "dS = A ⊙ (dA − Σ_k A dA)", "dS", &attention_grads::grad_scores},
        {stage::grad_attn_scores_raw, "dS ÷ √d_k", "dRaw", &attention_grads::grad_raw},
        {stage::grad_q, "dQ = dS K ÷ √d_k", "dQ", &attention_grads::grad_q},
        {stage::grad_k, "dK = dSᵀ Q ÷ √d_k", "dK", &attention_grads::grad_k},
    };
    return v;
}

std::string show_gradient(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item);
    const std::string which = need_string(item, "stage");
    const gradient_view* view = nullptr;
    std::string known;
    for (const auto& g : gradient_views()) {
        if (which == g.name()) view = &g;
        known += (known.empty() ? "" : ", ") + std::string(g.name());
    }
    if (!view) bad(item, "'stage' must be one of " + known + ", found '" + which + "'", "stage");
    const attention_grads g = grads_of(l, item, run);
    const matrix& m = g.*(view->field);
    const auto& rows = view->key_rows() ? run.labels.key_tokens : run.labels.query_tokens;
    const auto cols = view->key_columns() ? run.labels.key_tokens : trace::dimension_labels(m.shape(1));
    const std::string axes = std::string("rows: ") + (view->key_rows() ? "keys" : "queries") +
                             " · columns: " + (view->key_columns() ? "keys" : "dimensions");
    return trace::render(trace::make_table(opt_string(item, "title", view->caption), axes, view->symbol, rows, cols, m,
                                           opt_decimals(item, 4)),
                         st);
}

// One query's row: a_j, dA_j, a_j·dA_j, then Σ, then dS_j = a_j (dA_j − Σ).
std::string show_softmax_backward_row(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item);
    const std::size_t i = need_query(run, item);
    const attention_grads g = grads_of(l, item, run);
    const int dp = opt_decimals(item, 4);
    const std::string tok = run.labels.query_tokens[i];
    trace::table t;
    t.title = opt_string(item, "title", "Softmax backward for \"" + tok + "\", key by key");
    t.axes = "rows: keys";
    t.corner = "key";
    t.col_labels = {"a", "dA", "a·dA", "dA − Σ", "dS"};
    t.shape = fmt::format("[{} × 5]", run.steps.n_k());
    double check = 0.0;
    for (std::size_t j = 0; j < run.steps.n_k(); ++j) {
        const double a = run.steps.weights(i, j), da = g.grad_weights(i, j);
        t.row_labels.push_back(run.labels.key_tokens[j]);
        t.cells.push_back({trace::fixed(a, dp), trace::fixed(da, dp), trace::fixed(a * da, dp),
                           trace::fixed(da - g.row_dot(i), dp), trace::fixed(g.grad_scores(i, j), dp)});
        check += g.grad_scores(i, j);
    }
    std::string out = trace::render(t, st);
    out += fmt::format("  Σ = Σ_k a_k·dA_k = {}   (the sum of the a·dA column)\n", trace::fixed(g.row_dot(i), dp));
    out += fmt::format("  dS_j = a_j · (dA_j − Σ); the dS column sums to {}, as it must:\n", trace::fixed(check, dp));
    out += "  the weights always sum to 1, so their changes always sum to 0.\n";
    return out;
}

// Mean Jacobian norm and largest weight of softmax over random scores, for each d.
std::string show_saturation(const lesson&, const show_item& item, const trace::style& st) {
    const toml::array* dims = item.spec->get("dims") ? item.spec->get("dims")->as_array() : nullptr;
    if (!dims || dims->empty()) bad(item, "needs 'dims', a list of dimensions such as [4, 64, 512]", "dims");
    const auto keys = static_cast<std::size_t>(whole_number(item, "keys", 2, 64));
    const auto samples = static_cast<std::size_t>(whole_number(item, "samples", 1, 100000));
    const auto seed = static_cast<std::uint64_t>(whole_number(item, "seed", 0, INT64_MAX));
    prng g(seed);
    trace::table t;
    t.title = opt_string(item, "title", fmt::format("Softmax gradient, {} keys, {} rows", keys, samples));
    t.axes = "rows: d";
    t.corner = "d";
    t.col_labels = {"max a, ÷√d", "‖J‖, ÷√d", "max a, raw", "‖J‖, raw"};
    t.shape = fmt::format("[{} × 4]", dims->size());
    for (const auto& e : *dims) {
        if (!e.is_integer() || *e.value<int64_t>() < 1 || *e.value<int64_t>() > 4096)
            bad(item, "'dims' must hold whole numbers from 1 to 4096", "dims");
        const auto p = measure_saturation(g, static_cast<std::size_t>(*e.value<int64_t>()), keys, samples);
        t.row_labels.push_back(std::to_string(p.d));
        t.cells.push_back({trace::fixed(p.scaled_max, 3), trace::fixed(p.scaled_norm, 3), trace::fixed(p.unscaled_max, 3),
                           trace::fixed(p.unscaled_norm, 3)});
    }
    return trace::render(t, st);
}

// The checks (show_kinds.hpp): what each kind refuses, found without drawing.

// 'grad' must be shaped like the run's output.
void check_grad(const lesson& l, const show_item& item) {
    const attention_run& run = need_run(l, item);
    const matrix& d_out = need_matrix(l, item, "grad");
    if (d_out.shape(0) != run.steps.n_q() || d_out.shape(1) != run.steps.d_v())
        bad(item, fmt::format("'grad' must be [{} × {}] like the run's output, found [{} × {}]", run.steps.n_q(),
                              run.steps.d_v(), d_out.shape(0), d_out.shape(1)),
            "grad");
}

void check_gradient(const lesson& l, const show_item& item) {
    check_references(l, item);
    const std::string which = need_string(item, "stage");
    std::string known;
    bool found = false;
    for (const auto& g : gradient_views()) {
        found = found || which == g.name();
        known += (known.empty() ? "" : ", ") + std::string(g.name());
    }
    if (!found) bad(item, "'stage' must be one of " + known + ", found '" + which + "'", "stage");
    check_grad(l, item);
}

void check_softmax_backward_row(const lesson& l, const show_item& item) {
    check_references(l, item);
    check_grad(l, item);
}

void check_saturation(const lesson& l, const show_item& item) {
    check_references(l, item);
    const toml::array* dims = item.spec->get("dims") ? item.spec->get("dims")->as_array() : nullptr;
    if (!dims || dims->empty()) bad(item, "needs 'dims', a list of dimensions such as [4, 64, 512]", "dims");
    (void)whole_number(item, "keys", 2, 64);
    (void)whole_number(item, "samples", 1, 100000);
    (void)whole_number(item, "seed", 0, INT64_MAX);
    for (const auto& e : *dims)
        if (!e.is_integer() || *e.value<int64_t>() < 1 || *e.value<int64_t>() > 4096)
            bad(item, "'dims' must hold whole numbers from 1 to 4096", "dims");
}

}  // namespace

std::vector<show_kind> backward_kinds() {
    return {
        {"gradient", show_gradient, {"run", "grad", "stage"}, {"decimals", "title"},
         "one gradient of a run's backward pass (grad_z, grad_v, grad_pattern, grad_attn_scores, grad_q, grad_k)", check_gradient},
        {"softmax_backward_row", show_softmax_backward_row, {"run", "grad", "token"}, {"decimals", "title"},
         "one query's softmax backward, key by key: a, dA, a·dA, the Σ term and dS", check_softmax_backward_row},
        {"saturation", show_saturation, {"dims", "keys", "samples", "seed"}, {"title"},
         "the size of the softmax gradient for scaled and unscaled random scores as d grows", check_saturation},
    };
}

}  // namespace attn::lessons::show
