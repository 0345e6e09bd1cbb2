// cli/model_circuits.cpp — `attn model circuits CKPT --layer L --head H [--vocab N]
// [--tokenizer PATH] [--json FILE|-]`: a head's circuits read from the weights alone
// (model/circuits.hpp): its full QK circuit W_E·W_QK·W_Eᵀ and full OV circuit W_E·W_OV·W_U
// on the first N tokens as heatmaps, and its composition scores (Q, K, V; Elhage et al.'s
// Frobenius-norm ratio, TransformerLens's composition_scores) with the heads of other layers.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/layout.hpp"
#include "cli/model_budget.hpp"
#include "cli/model_stop.hpp"
#include "cli/model_load.hpp"
#include "cli/model_verbs.hpp"
#include "core/error.hpp"
#include "core/types.hpp"
#include "io/output_writer.hpp"
#include "io/terminal_safe.hpp"
#include "model/circuits.hpp"
#include "trace/heatmap.hpp"
#include "trace/number_format.hpp"
#include "trace/table.hpp"

namespace attn::cli {

namespace {

struct circuits_options {
    std::string checkpoint, tokenizer, json, dtype = "auto";
    long layer = -1, head = -1;
    std::size_t vocab = 16;
    layout_options layout;
};

std::string circuit_map(const std::string& title, const std::string& axes, const std::vector<std::vector<double>>& v,
                        const std::vector<std::string>& labels, const trace::style& st) {
    matrix m = matrix::from_shape({v.size(), v.size()});  // [n, n]
    for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j < v.size(); ++j) m(i, j) = v[i][j];
    trace::heatmap_input hi;
    hi.title = title;
    hi.row_labels = hi.col_labels = labels;
    hi.values = &m;
    hi.axes = axes;
    hi.width = st.width;
    return trace::render_heatmap(hi, trace::heatmap_style_for(st.color));
}

// How many rows have their largest value on the diagonal (a copying head's OV circuit).
std::size_t diagonal_wins(const std::vector<std::vector<double>>& v) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        if (std::max_element(v[i].begin(), v[i].end()) - v[i].begin() == static_cast<long>(i)) ++n;
    return n;
}

std::string head_label(std::size_t l, std::size_t h) { return fmt::format("L{}H{}", l, h); }

// The chosen head's composition with every head of another layer, as the later head
// (rows: earlier heads) or the earlier one (rows: later heads).
std::string composition_view(const std::vector<model::composition>& all, std::size_t L, std::size_t H, const trace::style& st) {
    trace::table t;
    t.title = fmt::format("Composition scores of layer {} head {} with the heads of other layers", L, H);
    t.corner = "pair of heads";
    t.col_labels = {"Q", "K", "V"};
    const model::composition* best = nullptr;
    char best_kind = 'Q';
    for (const auto& s : all) {
        const bool later = s.later_layer == L && s.later_head == H, earlier = s.earlier_layer == L && s.earlier_head == H;
        if (!later && !earlier) continue;
        t.row_labels.push_back(head_label(s.earlier_layer, s.earlier_head) + " → " + head_label(s.later_layer, s.later_head));
        t.cells.push_back({trace::fixed(s.q, 4), trace::fixed(s.k, 4), trace::fixed(s.v, 4)});
        for (auto [kind, v] : {std::pair<char, double>{'Q', s.q}, {'K', s.k}, {'V', s.v}})
            if (!best || v > (best_kind == 'Q' ? best->q : best_kind == 'K' ? best->k : best->v)) best = &s, best_kind = kind;
    }
    if (!best) return "No other layer: no composition.\n";
    t.shape = fmt::format("[{} × 3]", t.row_labels.size());
    const bool later = best->later_layer == L;
    return trace::render(t, st) +
           fmt::format("Strongest: {} {}-composes with {} ({}-composition {}: {}'s output feeds {}'s {}).\n", head_label(L, H),
                       best_kind, later ? head_label(best->earlier_layer, best->earlier_head) : head_label(best->later_layer, best->later_head),
                       best_kind, trace::fixed(best_kind == 'Q' ? best->q : best_kind == 'K' ? best->k : best->v, 4),
                       head_label(best->earlier_layer, best->earlier_head), head_label(best->later_layer, best->later_head),
                       best_kind == 'Q' ? "queries" : best_kind == 'K' ? "keys" : "values");
}

// One kind of composition (Q, K or V) of the chosen head with every head as a [layer ×
// head] heatmap; its own layer's cells, where no composition exists, shown blocked.
std::string composition_map(const std::vector<model::composition>& all, std::size_t L, std::size_t H, char kind,
                            std::size_t n_layer, std::size_t n_head, const trace::style& st) {
    matrix m = matrix::from_shape({n_layer, n_head});  // [layer, head]
    bool_matrix attend = bool_matrix::from_shape({n_layer, n_head});
    m.fill(0.0);
    attend.fill(false);
    for (const auto& s : all) {
        const bool later = s.later_layer == L && s.later_head == H;
        const std::size_t l = later ? s.earlier_layer : s.later_layer, h = later ? s.earlier_head : s.later_head;
        m(l, h) = kind == 'Q' ? s.q : kind == 'K' ? s.k : s.v;
        attend(l, h) = true;
    }
    std::vector<std::string> rows, cols;
    for (std::size_t l = 0; l < n_layer; ++l) rows.push_back(std::to_string(l));
    for (std::size_t h = 0; h < n_head; ++h) cols.push_back(std::to_string(h));
    trace::heatmap_input hi;
    hi.title = fmt::format("{}-composition of L{}H{} with each head", kind, L, H);
    hi.row_labels = rows;
    hi.col_labels = cols;
    hi.values = &m;
    hi.attend = &attend;
    hi.axes = "rows: layers · columns: heads, from 0";
    hi.legend_note = "blocked: the head's own layer (heads of one layer do not compose)";
    hi.width = st.width;
    return trace::render_heatmap(hi, trace::heatmap_style_for(st.color));
}

std::string circuit_grid_json(const std::vector<std::vector<double>>& g) {
    std::string s = "[";
    for (std::size_t i = 0; i < g.size(); ++i) {
        s += i ? ",\n  [" : "\n  [";
        for (std::size_t j = 0; j < g[i].size(); ++j) s += fmt::format("{}{:.17g}", j ? ", " : "", g[i][j]);
        s += "]";
    }
    return s + "]";
}

void write_json(const std::vector<std::vector<double>>& qk, const std::vector<std::vector<double>>& ov,
                const std::vector<model::composition>& all, const std::string& path) {
    std::string s = fmt::format("{{\"tokens\": {}, \"qk_circuit\": {},\n\"ov_circuit\": {},\n\"composition\": [", qk.size(),
                                circuit_grid_json(qk), circuit_grid_json(ov));
    for (std::size_t i = 0; i < all.size(); ++i)
        s += fmt::format("{}\n  {{\"earlier\": \"blocks.{}.attn.head.{}\", \"later\": \"blocks.{}.attn.head.{}\", \"q\": {:.17g}, "
                         "\"k\": {:.17g}, \"v\": {:.17g}}}",
                         i ? "," : "", all[i].earlier_layer, all[i].earlier_head, all[i].later_layer, all[i].later_head, all[i].q,
                         all[i].k, all[i].v);
    io::staged_file out(path);
    out.write(s + "]}\n");
    out.commit();
    if (!io::is_stdout(path)) std::cerr << "attn model circuits: wrote " << io::terminal_safe(path) << "\n";
}

template <class T>
void circuits_with(const model::model_params<T>& p, const loaded_model& m, const circuits_options& o) {
    const std::size_t L = static_cast<std::size_t>(o.layer), H = static_cast<std::size_t>(o.head);
    const std::size_t n = std::min(o.vocab, p.config.vocab_size);
    const auto qk = model::full_qk_circuit(p, L, H, n), ov = model::full_ov_circuit(p, L, H, n);
    const auto all = model::composition_scores(p, L, H);
    if (!o.json.empty()) {
        write_json(qk, ov, all, o.json);
        if (io::is_stdout(o.json)) return;
    }
    token_input names;
    if (!o.tokenizer.empty()) names = read_tokens({"0"}, "", o.tokenizer);
    std::vector<std::string> labels;
    for (std::size_t t = 0; t < n; ++t) labels.push_back(names.label(static_cast<int>(t)));
    const trace::style st = make_style(o.layout);
    std::string out = "Model: " + model_summary(m) + "\n" +
                      fmt::format("Layer {} head {}, from the weights alone: each layer norm's weight folded in,\n"
                                  "W_O centred, the norms' scales left out; tokens 0..{}.\n\n", L, H, n - 1);
    out += circuit_map(fmt::format("Full QK circuit W_E·W_QK·W_Eᵀ (tokens 0..{})", n - 1), "rows: query token · columns: key token", qk,
                       labels, st) + "\n";
    out += circuit_map(fmt::format("Full OV circuit W_E·W_OV·W_U (tokens 0..{})", n - 1),
                       "rows: token attended to · columns: logit raised", ov, labels, st);
    out += fmt::format("Copying: {} of {} tokens raise their own logit most (the diagonal).\n\n", diagonal_wins(ov), n);
    out += composition_view(all, L, H, st);
    if (p.config.n_head > 1 && !all.empty())
        for (char kind : {'Q', 'K', 'V'}) out += "\n" + composition_map(all, L, H, kind, p.config.n_layer, p.config.n_head, st);
    print_fitted(out, st);
}

void run_model_circuits(const circuits_options& o) {
    const loaded_model m = load_model(o.checkpoint, o.dtype);
    const model::architecture& c = m.config();
    if (static_cast<std::size_t>(o.layer) >= c.n_layer)
        throw attn::error(fmt::format("--layer {} does not exist: the model has {} layers (0..{})", o.layer, c.n_layer, c.n_layer - 1));
    if (static_cast<std::size_t>(o.head) >= c.n_head)
        throw attn::error(fmt::format("--head {} does not exist: the model has {} head{} (0..{})", o.head, c.n_head,
                                      c.n_head == 1 ? "" : "s", c.n_head - 1));
    with_params(m, [&](const auto& p) { circuits_with(p, m, o); });
}

void setup_model_circuits(CLI::App& model) {
    auto o = std::make_shared<circuits_options>();
    auto* sub = model.add_subcommand("circuits", "A head's QK and OV circuits from the weights and its composition scores "
                                                 "(Q, K, V: TransformerLens's composition_scores) with other layers' heads");
    sub->add_option("CKPT", o->checkpoint, "The checkpoint (.safetensors or .gguf; GPT-2 or Llama family), or a built-in model's name (attn model list)")->required();
    sub->add_option("--layer", o->layer, "The layer of the head (from 0, as blocks.L)")->required()->check(CLI::NonNegativeNumber);
    sub->add_option("--head", o->head, "The head (from 0)")->required()->check(CLI::NonNegativeNumber);
    sub->add_option("--vocab", o->vocab, "How many tokens (0..N-1) the QK and OV circuits show (default 16)")->check(CLI::Range(1, 64));
    sub->add_option("--tokenizer", o->tokenizer, "Tokenizer to label the tokens (a folder, a tokenizer.json or a GGUF)");
    sub->add_option("--json", o->json, "Write the circuits and the head's composition scores as JSON to FILE, or '-' for stdout");
    add_dtype_option(*sub, o->dtype);
    add_budget_option(*sub);
    add_layout_options(*sub, o->layout);
    sub->callback([o] {
        stop_on_interrupt();  // Ctrl-C: within a second, exit 130 (cli/model_stop)
        run_model_circuits(*o);
    });
}

}  // namespace

static const bool model_circuits_registered = register_model_verb({"circuits", 36, setup_model_circuits});

}  // namespace attn::cli
