// lessons/show_circuits.cpp — show kinds of lessons 24–26, why a trained head attends
// where it does: one pre-softmax score split exactly into (query-side component ×
// key-side component) terms (`score_terms`, model/explain's explain_score and
// explain_difference), the Q-, K- and V-composition scores of one head with the heads
// of other layers (`composition`, model/circuits), what a head writes at a query, key
// by key, and every component's direct logit attribution to the next token
// (`head_writes`, `logit_attribution`), and patching and ablating each head measured
// by the loss of a span (`head_patching`, model/patching). Every number is computed
// when shown, from the built-in checkpoint's float64 forward. Layers and heads are
// counted from 1 on screen (lessons/counting.hpp), from 0 in the lesson file.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "lessons/counting.hpp"
#include "lessons/show_kinds.hpp"
#include "lessons/show_trained_inputs.hpp"
#include "model/circuits.hpp"
#include "model/explain.hpp"
#include "model/patching.hpp"
#include "trace/number_format.hpp"
#include "trace/table.hpp"
#include "trace/text_width.hpp"

namespace attn::lessons::show {

namespace {

// The most components a term table shows whole (the induction model has 4: embed,
// pos, one head, bias; a model with more is refused when the lesson loads).
constexpr std::size_t max_components = 8;

// The layer number of "blocks.L.…", counted from 0.
std::size_t block_of(const std::string& name) { return std::stoul(name.substr(7, name.find('.', 7) - 7)); }

// A component's short label, counted from 1: "embed", "pos", "L1H1", "L1 MLP", "bias".
std::string component_label(const std::string& name) {
    if (name == "pos_embed") return "pos";
    if (name.rfind("blocks.", 0) != 0) return name;
    const std::string l = std::to_string(block_of(name) + 1);
    if (name.find(".attn.head.") != std::string::npos) return "L" + l + "H" + std::to_string(std::stoul(name.substr(name.rfind('.') + 1)) + 1);
    return "L" + l + " MLP";
}

// A component in words, counted from 1: "layer 1, head 1's output".
std::string component_words(const std::string& name) {
    if (name == "embed") return "the token embedding";
    if (name == "pos_embed") return "the position embedding";
    if (name == "bias") return "the biases";
    if (name.find(".attn.head.") != std::string::npos)
        return head_label(block_of(name), std::stoul(name.substr(name.rfind('.') + 1)), false) + "'s output";
    return "layer " + std::to_string(block_of(name) + 1) + "'s MLP";
}

// `text` broken at spaces into lines of at most `width` columns, the first starting
// with `first`, the rest with `indent`.
std::string wrap(const std::string& text, std::size_t width, const std::string& first, const std::string& indent) {
    std::istringstream words(text);
    std::string out, line = first;
    bool empty = true;
    for (std::string w; words >> w;) {
        if (!empty && trace::display_width(line) + 1 + trace::display_width(w) > width) out += line + "\n", line = indent, empty = true;
        line += (empty ? "" : " ") + w;
        empty = false;
    }
    return out + line + "\n";
}

// A position of the item's `key`: a whole number from 0 to hi.
std::size_t need_pos(const show_item& item, const std::string& key, std::size_t hi) {
    return whole(item, key, 0, static_cast<std::int64_t>(hi));
}

struct head_choice {
    std::size_t layer = 0, head = 0;
};

head_choice need_head(const show_item& item, const model::architecture& c) {
    return {whole(item, "layer", 0, static_cast<std::int64_t>(c.n_layer) - 1),
            whole(item, "head", 0, static_cast<std::int64_t>(c.n_head) - 1)};
}

// ── score_terms ────────────────────────────────────────────────────────────────────

// Every term, query side (rows) × key side (columns), with totals.
std::string term_table(const model::score_decomposition& d, const std::string& title, const trace::style& st) {
    const std::size_t n = d.components.size();  // d.terms: [n][n]
    trace::table t;
    t.title = title;
    t.axes = "rows: the component at the query · columns: at the key";
    t.corner = "query \\ key";
    for (const auto& c : d.components) t.col_labels.push_back(component_label(c));
    t.col_labels.push_back("total");
    std::vector<double> col_total(n + 1, 0.0);  // [n + 1]
    for (std::size_t i = 0; i < n; ++i) {
        t.row_labels.push_back(component_label(d.components[i]));
        t.cells.emplace_back();
        double row = 0;
        for (std::size_t j = 0; j < n; ++j) {
            t.cells.back().push_back(trace::fixed(d.terms[i][j], 4));
            row += d.terms[i][j];
            col_total[j] += d.terms[i][j];
        }
        t.cells.back().push_back(trace::fixed(row, 4));
        col_total[n] += row;
    }
    t.row_labels.push_back("total");
    t.cells.emplace_back();
    for (double v : col_total) t.cells.back().push_back(trace::fixed(v, 4));
    t.shape = fmt::format("[{} × {}]", n, n);
    return trace::render(t, st);
}

// The three largest terms in words, each with its share of the sum.
std::string largest_terms(const model::score_decomposition& d, const std::string& of, std::size_t width) {
    struct cell { double v; std::size_t i, j; };
    std::vector<cell> cells;
    for (std::size_t i = 0; i < d.terms.size(); ++i)
        for (std::size_t j = 0; j < d.terms[i].size(); ++j) cells.push_back({d.terms[i][j], i, j});
    std::stable_sort(cells.begin(), cells.end(), [](const cell& a, const cell& b) { return std::abs(a.v) > std::abs(b.v); });
    std::string out = "The largest terms:\n";
    for (std::size_t k = 0; k < std::min<std::size_t>(3, cells.size()); ++k) {
        const cell& c = cells[k];
        const std::string share = std::abs(d.sum) > 1e-12 ? fmt::format(", {}% of the {}", trace::fixed(100.0 * c.v / d.sum, 0), of) : "";
        out += wrap(fmt::format("{} at the key × {} at the query: {}{}", component_words(d.components[c.j]),
                                component_words(d.components[c.i]), trace::signed_fixed(c.v, 4), share),
                    width, fmt::format("  {}. ", k + 1), "     ");
    }
    return out;
}

std::string show_score_terms(const lesson&, const show_item& item, const trace::style& st) {
    const sequence s = need_sequence(item);
    const auto& p = s.model->params;
    const head_choice h = need_head(item, p.config);
    const std::size_t q = need_pos(item, "query", s.ids.size() - 1), k = need_pos(item, "key", q);
    const auto r = model::record_run(p, s.ids);
    const bool versus = item.spec->get("versus") != nullptr;
    std::string out;
    if (!versus) {
        const auto d = model::explain_score(p, r, h.layer, h.head, q, k);
        out = fmt::format("{}: query {} on key {} (weight {})\n", head_label(h.layer, h.head), s.at[q], s.at[k], trace::fixed(d.weight, 4));
        out += term_table(d, "Terms of the score", st);
        out += fmt::format("  sum of the terms  {}  ·  the model's score  {}\n", trace::fixed(d.sum, 6), trace::fixed(d.model_score, 6));
        return out + largest_terms(d, "score", st.width);
    }
    const std::size_t other = need_pos(item, "versus", q);
    const auto d = model::explain_difference(p, r, h.layer, h.head, q, k, other);
    out = fmt::format("{}, query {}: why key {} rather than key {}\n", head_label(h.layer, h.head), s.at[q], s.at[k], s.at[other]);
    out += term_table(d, fmt::format("Terms of score({}, {}) − score({}, {})", s.at[q], s.at[k], s.at[q], s.at[other]), st);
    out += fmt::format("  sum of the terms  {}  ·  the model's difference  {}\n", trace::fixed(d.sum, 6), trace::fixed(d.model_score, 6));
    return out + largest_terms(d, "difference", st.width);
}

// ── composition ────────────────────────────────────────────────────────────────────

std::string show_composition(const lesson&, const show_item& item, const trace::style& st) {
    const auto& p = need_model(item).params;
    const head_choice h = need_head(item, p.config);
    const auto scores = model::composition_scores(p, h.layer, h.head);
    trace::table t;
    t.title = opt_string(item, "title", fmt::format("Composition scores of {} with the heads of other layers", head_label(h.layer, h.head, false)));
    t.axes = "rows: earlier head → later head · columns: which input of the later head";
    t.corner = "heads";
    t.col_labels = {"Q", "K", "V"};
    for (const auto& c : scores) {
        t.row_labels.push_back(fmt::format("L{}H{} → L{}H{}", c.earlier_layer + 1, c.earlier_head + 1, c.later_layer + 1, c.later_head + 1));
        t.cells.push_back({trace::fixed(c.q, 4), trace::fixed(c.k, 4), trace::fixed(c.v, 4)});
    }
    t.shape = fmt::format("[{} × 3]", scores.size());
    return trace::render(t, st) + "  score: ‖W_A·W_B‖ / (‖W_A‖·‖W_B‖), W_A the earlier head's W_OV, W_B the\n"
                                  "  later head's W_QK (Q), W_QKᵀ (K) or W_OV (V); Frobenius norms\n";
}

// ── head_writes and logit_attribution ──────────────────────────────────────────────

// Token ids ordered by logit, largest first (up) or smallest first.
std::vector<std::size_t> by_logit(const std::vector<double>& logits, bool up) {
    std::vector<std::size_t> idx(logits.size());
    std::iota(idx.begin(), idx.end(), std::size_t(0));
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return up ? logits[a] > logits[b] : logits[a] < logits[b]; });
    return idx;
}

std::string show_head_writes(const lesson&, const show_item& item, const trace::style& st) {
    const sequence s = need_sequence(item);
    const auto& p = s.model->params;
    const head_choice h = need_head(item, p.config);
    const std::size_t q = need_pos(item, "query", s.ids.size() - 1);
    const std::size_t rows = whole(item, "rows", 1, 32);
    const auto r = model::record_run(p, s.ids);
    const auto ws = model::head_writes(p, r, h.layer, h.head, q);
    std::vector<std::size_t> order(ws.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ws[a].weight > ws[b].weight; });
    order.resize(std::min(order.size(), rows));
    trace::table t;
    t.title = fmt::format("What {} writes at query {}", head_label(h.layer, h.head, false), s.at[q]);
    t.axes = "rows: keys, most weighted first · DLA: the logit it adds";
    t.corner = "key";
    t.col_labels = {"weight", "raises most", "DLA", "lowers most", "DLA"};
    std::vector<double> whole_write(p.config.n_embd, 0.0);  // [d_model] the head's output at q
    for (const auto& w : ws)
        for (std::size_t i = 0; i < whole_write.size(); ++i) whole_write[i] += w.value[i];
    for (auto k : order) {
        const auto logits = model::direct_logits(p, r, q, ws[k].value, false);
        const std::size_t up = by_logit(logits, true)[0], down = by_logit(logits, false)[0];
        t.row_labels.push_back(s.at[ws[k].key]);
        t.cells.push_back({trace::fixed(ws[k].weight, 4), s.vocab[up], trace::signed_fixed(logits[up], 3), s.vocab[down],
                           trace::signed_fixed(logits[down], 3)});
    }
    t.shape = fmt::format("[{} of {} keys]", order.size(), ws.size());
    const auto logits = model::direct_logits(p, r, q, whole_write, false);
    const auto up = by_logit(logits, true);
    std::string raised;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, up.size()); ++i)
        raised += fmt::format("{}{} ({})", i ? ", " : "", s.vocab[up[i]], trace::signed_fixed(logits[up[i]], 3));
    return trace::render(t, st) + wrap("The whole head's output (the sum over keys) raises most: " + raised, st.width, "  ", "  ");
}

std::string show_logit_attribution(const lesson&, const show_item& item, const trace::style& st) {
    const sequence s = need_sequence(item);
    const auto& p = s.model->params;
    const std::size_t q = need_pos(item, "query", s.ids.size() - 2);
    const std::size_t target = static_cast<std::size_t>(s.ids[q + 1]);
    const auto r = model::record_run(p, s.ids);
    const auto a = model::attribute_logit(p, r, q, target);
    trace::table t;
    t.title = fmt::format("Direct logit attribution at {} to the next token, {}", s.at[q], s.vocab[target]);
    t.axes = "rows: what wrote into the final residual stream";
    t.corner = "component";
    t.col_labels = {"logit"};
    for (std::size_t i = 0; i < a.components.size(); ++i) {
        t.row_labels.push_back(component_label(a.components[i]));
        t.cells.push_back({trace::signed_fixed(a.values[i], 4)});
    }
    t.shape = fmt::format("[{} components]", a.components.size());
    const double sum = std::accumulate(a.values.begin(), a.values.end(), 0.0);
    return trace::render(t, st) + fmt::format("  sum {}  ·  the model's logit of {}  {}\n", trace::signed_fixed(sum, 6), s.vocab[target],
                                              trace::signed_fixed(a.model_logit, 6));
}

// ── head_patching ──────────────────────────────────────────────────────────────────

std::string show_head_patching(const lesson&, const show_item& item, const trace::style& st) {
    const sequence clean = need_sequence(item, "clean"), corrupt = need_sequence(item, "corrupt");
    if (clean.ids.size() != corrupt.ids.size()) bad(item, "'clean' and 'corrupt' must hold as many tokens", "corrupt");
    const auto& p = clean.model->params;
    const std::size_t P = clean.ids.size(), from = whole(item, "from", 1, static_cast<std::int64_t>(P) - 1);
    model::patch_metric m;
    m.kind = model::metric_kind::loss;
    m.from = from - 1;  // the prediction made at from − 1 is of the token at from
    const auto res = model::run_patching(p, clean.ids, corrupt.ids, m);
    std::string out = fmt::format("Loss: the mean over the clean text's tokens {} … {} (counted from 0)\n", from, P - 1);
    out += fmt::format("  clean run {}  ·  corrupted run {}\n", trace::fixed(res.clean, 4), trace::fixed(res.corrupt, 4));
    trace::table t;
    t.title = "Each head's output patched from the clean run into the corrupted run";
    t.axes = "change: the patched loss − the corrupted run's";
    t.corner = "head";
    t.col_labels = {"loss", "change"};
    trace::table a;
    a.title = "Each head removed from the clean run";
    a.axes = "zeroed: its output set to 0 · mean: to its mean over positions";
    a.corner = "head";
    a.col_labels = {"zeroed", "change", "mean", "change"};
    for (std::size_t l = 0; l < p.config.n_layer; ++l)
        for (std::size_t h = 0; h < p.config.n_head; ++h) {
            const std::string label = head_label(l, h);
            t.row_labels.push_back(label);
            a.row_labels.push_back(label);
            const double patched = res.head_patch[l][h], zeroed = res.zero_ablation[l][h], mean = res.mean_ablation[l][h];
            t.cells.push_back({trace::fixed(patched, 4), trace::signed_fixed(patched - res.corrupt, 4)});
            a.cells.push_back({trace::fixed(zeroed, 4), trace::signed_fixed(zeroed - res.clean, 4), trace::fixed(mean, 4),
                               trace::signed_fixed(mean - res.clean, 4)});
        }
    t.shape = a.shape = fmt::format("[{} heads]", t.row_labels.size());
    const std::string what = opt_string(item, "what", "both");
    return out + (what == "ablate" ? "" : trace::render(t, st)) + (what == "patch" ? "" : trace::render(a, st));
}

// ── load-time checks (each reads what its render reads, runs no forward) ────────────

void check_components(const show_item& item, const model::architecture& c) {
    const std::size_t n = 3 + c.n_layer * (c.n_head + (c.has_mlp() ? 1 : 0));
    if (n > max_components)
        bad(item, fmt::format("the model has up to {} components, more than the {} a term table shows whole", n, max_components), "model");
}

void check_score_terms(const lesson& l, const show_item& item) {
    check_references(l, item);
    const sequence s = need_sequence(item);
    check_components(item, s.model->params.config);
    need_head(item, s.model->params.config);
    const std::size_t q = need_pos(item, "query", s.ids.size() - 1);
    need_pos(item, "key", q);
    if (item.spec->get("versus")) need_pos(item, "versus", q);
}

void check_composition(const lesson& l, const show_item& item) {
    check_references(l, item);
    need_head(item, need_model(item).params.config);
}

void check_head_writes(const lesson& l, const show_item& item) {
    check_references(l, item);
    const sequence s = need_sequence(item);
    need_head(item, s.model->params.config);
    need_pos(item, "query", s.ids.size() - 1);
    whole(item, "rows", 1, 32);
}

void check_logit_attribution(const lesson& l, const show_item& item) {
    check_references(l, item);
    const sequence s = need_sequence(item);
    if (s.ids.size() < 2) bad(item, "'tokens' must hold 2 tokens or more: the next token is the target", "tokens");
    check_components(item, s.model->params.config);
    need_pos(item, "query", s.ids.size() - 2);
}

void check_head_patching(const lesson& l, const show_item& item) {
    check_references(l, item);
    const sequence clean = need_sequence(item, "clean"), corrupt = need_sequence(item, "corrupt");
    if (clean.model != corrupt.model || clean.ids.size() != corrupt.ids.size())
        bad(item, "'clean' and 'corrupt' must hold as many tokens", "corrupt");
    if (clean.ids.size() < 2) bad(item, "'clean' must hold 2 tokens or more", "clean");
    whole(item, "from", 1, static_cast<std::int64_t>(clean.ids.size()) - 1);
    const std::string what = opt_string(item, "what", "both");
    if (what != "both" && what != "patch" && what != "ablate") bad(item, "'what' must be patch, ablate or both", "what");
}

}  // namespace

std::vector<show_kind> circuit_kinds() {
    return {
        {"score_terms", show_score_terms, {"model", "tokens", "layer", "head", "query", "key"}, {"versus", "labels"},
         "one score of a trained head split exactly into query-side × key-side component terms (or the difference with key 'versus')",
         check_score_terms},
        {"composition", show_composition, {"model", "layer", "head"}, {"title"},
         "the Q-, K- and V-composition scores of a trained head with the heads of other layers", check_composition},
        {"head_writes", show_head_writes, {"model", "tokens", "layer", "head", "query", "rows"}, {"labels"},
         "what a trained head writes at a query, key by key: weight, and the tokens its write raises and lowers most",
         check_head_writes},
        {"logit_attribution", show_logit_attribution, {"model", "tokens", "query"}, {"labels"},
         "every component's direct logit attribution to the next token at a query, summing to the model's logit",
         check_logit_attribution},
        {"head_patching", show_head_patching, {"model", "clean", "corrupt", "from"}, {"what", "labels"},
         "the loss of a span with each head patched from a clean into a corrupted run, and zero- and mean-ablated",
         check_head_patching},
    };
}

}  // namespace attn::lessons::show
