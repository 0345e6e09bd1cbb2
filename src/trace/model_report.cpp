// trace/model_report.cpp — predictions and head scores on screen (see model_report.hpp).
#include "trace/model_report.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "trace/heatmap.hpp"
#include "trace/number_format.hpp"
#include "trace/table.hpp"

namespace attn::trace {

template <class T>
std::vector<int> top_tokens(const model::forward_acts<T>& a, std::size_t b, std::size_t pos, std::size_t k) {
    const std::size_t V = a.probs.shape(2);
    const T* p = a.probs.data() + (b * a.n_pos + pos) * V;  // [V]
    std::vector<int> ids(V);
    std::iota(ids.begin(), ids.end(), 0);
    k = std::min(k, V);
    std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k), ids.end(),
                      [&](int x, int y) { return p[x] != p[y] ? p[x] > p[y] : x < y; });
    ids.resize(k);
    return ids;
}

namespace {

template <class T>
double prob_of(const model::forward_acts<T>& a, std::size_t b, std::size_t pos, int id) {
    return static_cast<double>(a.probs.data()[(b * a.n_pos + pos) * a.probs.shape(2) + static_cast<std::size_t>(id)]);
}

template <class T>
double logit_of(const model::forward_acts<T>& a, std::size_t b, std::size_t pos, int id) {
    return static_cast<double>(a.logits.data()[(b * a.n_pos + pos) * a.logits.shape(2) + static_cast<std::size_t>(id)]);
}

// Position → its token and the greedy next token.
template <class T>
table greedy_table(const model::forward_acts<T>& a, std::size_t b, const token_label& label, const std::string& which) {
    table t;
    t.title = "Greedy next token at each position" + which;
    t.axes = "rows: positions (from 0) and their tokens · the most likely next token";
    t.corner = "pos token";
    t.col_labels = {"next", "id", "prob"};
    for (std::size_t i = 0; i < a.n_pos; ++i) {
        const int id = top_tokens(a, b, i, 1)[0];
        t.row_labels.push_back(fmt::format("{} {}", i, label(a.tokens[b][i])));
        t.cells.push_back({label(id), std::to_string(id), fixed(prob_of(a, b, i, id), 4)});
    }
    t.shape = fmt::format("[{} × 3]", a.n_pos);
    return t;
}

template <class T>
table top_table(const model::forward_acts<T>& a, std::size_t b, const token_label& label, std::size_t k,
                const std::string& which) {
    const std::size_t last = a.n_pos - 1;
    table t;
    t.title = fmt::format("Top {} next tokens after {}", k, label(a.tokens[b][last])) + which;
    t.axes = "rows: rank · probs and logits at the last position";
    t.corner = "rank";
    t.col_labels = {"token", "id", "prob", "logit"};
    const auto ids = top_tokens(a, b, last, k);
    for (std::size_t r = 0; r < ids.size(); ++r) {
        t.row_labels.push_back(std::to_string(r + 1));
        t.cells.push_back({label(ids[r]), std::to_string(ids[r]), fixed(prob_of(a, b, last, ids[r]), 4),
                           fixed(logit_of(a, b, last, ids[r]), 4)});
    }
    t.shape = fmt::format("[{} × 4]", ids.size());
    return t;
}

}  // namespace

template <class T>
std::string render_predictions(const model::forward_acts<T>& a, const token_label& label, std::size_t top_k, const style& st) {
    std::string out;
    for (std::size_t b = 0; b < a.batch; ++b) {
        const std::string which = a.batch > 1 ? fmt::format(" · sequence {} of {}", b + 1, a.batch) : "";
        out += render(greedy_table(a, b, label, which), st) + "\n";
        out += render(top_table(a, b, label, top_k, which), st) + "\n";
    }
    return out;
}

template std::string render_predictions<float>(const model::forward_acts<float>&, const token_label&, std::size_t, const style&);
template std::string render_predictions<double>(const model::forward_acts<double>&, const token_label&, std::size_t,
                                                const style&);
template std::vector<int> top_tokens<float>(const model::forward_acts<float>&, std::size_t, std::size_t, std::size_t);
template std::vector<int> top_tokens<double>(const model::forward_acts<double>&, std::size_t, std::size_t, std::size_t);

std::string render_head_scores(const model::head_scores& s, const std::string& input_note, const style& st,
                               std::size_t first) {
    const std::vector<std::pair<const char*, const std::vector<double>*>> kinds = {
        {"Previous-token", &s.previous_token}, {"Duplicate-token", &s.duplicate_token}, {"Induction", &s.induction}};
    std::vector<std::string> rows, cols;
    for (std::size_t l = 0; l < s.n_layer; ++l) rows.push_back("layer " + std::to_string(l + first));
    for (std::size_t h = 0; h < s.n_head; ++h) cols.push_back("h" + std::to_string(h + first));
    std::string out = input_note + "\n";
    out += "Score: the share of a head's attention on the cells the pattern names\n"
           "(TransformerLens's head_detector, \"mul\"); 1 = all of it.\n" +
           std::string(first == 0 ? "Layers and heads counted from 0, as the hook names.\n\n"
                                  : "Layers and heads counted from 1 (the hook names count from 0).\n\n");
    const heatmap_style hs = heatmap_style_for(st.color);
    for (const auto& [name, values] : kinds) {
        matrix m = matrix::from_shape({s.n_layer, s.n_head});
        std::copy(values->begin(), values->end(), m.begin());
        const std::string title = std::string(name) + " head scores";
        out += render(make_table(title, "rows: layers · columns: heads", "layer \\ head", rows, cols, m, 3), st) + "\n";
        heatmap_input hi;
        hi.title = title;
        hi.row_labels = rows;
        hi.col_labels = cols;
        hi.values = &m;
        hi.unit_range = true;
        hi.axes = "rows: layers · columns: heads";
        hi.width = st.width;
        out += render_heatmap(hi, hs) + "\n";
        const auto best = static_cast<std::size_t>(std::max_element(values->begin(), values->end()) - values->begin());
        out += fmt::format("{} head with the highest score: layer {}, head {} ({})\n\n", name, best / s.n_head + first,
                           best % s.n_head + first, fixed((*values)[best], 3));
    }
    return out;
}

namespace {

// The size of one axis of a hook for a config and P positions of one sequence.
std::string axis_size(const std::string& axis, const model::architecture& c, std::size_t P) {
    if (axis == "batch") return "1";
    if (axis == "pos" || axis == "query_pos" || axis == "key_pos") return std::to_string(P);
    if (axis == "head") return std::to_string(c.n_head);
    if (axis == "d_head") return std::to_string(c.d_head());
    if (axis == "d_model") return std::to_string(c.n_embd);
    if (axis == "d_mlp") return std::to_string(c.d_mlp());
    if (axis == "d_vocab") return std::to_string(c.vocab_size);
    return "?";
}

}  // namespace

std::string render_hook_table(const model::architecture& c, std::size_t P, const style& st) {
    std::string out = st.heading(fmt::format("The hooks of one forward ({} positions, one sequence)", P)) + "\n";
    for (const auto& h : model::hook_names(c)) {
        if (h.info->scope == model::hook_scope::block && h.layer > 0) continue;
        std::string axes, shape;
        for (const char* a : h.info->axes) {
            axes += (axes.empty() ? "" : ", ") + std::string(a);
            shape += (shape.empty() ? "" : " × ") + axis_size(a, c, P);
        }
        out += fmt::format("  {} = {}\n      [{}] {}\n", st.label(h.name), shape, axes, h.info->what);
        if (h.info->scope == model::hook_scope::block && c.n_layer > 1 && std::string(h.info->name) == "hook_resid_post")
            out += (c.n_layer == 2 ? std::string("  blocks.1") : fmt::format("  blocks.1 … blocks.{}", c.n_layer - 1)) +
                   ": the same hooks as blocks.0\n";
    }
    return out;
}

}  // namespace attn::trace
