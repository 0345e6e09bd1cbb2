// cli/model_explain.cpp — `attn model explain CKPT (--tokens … | --text … --tokenizer …)
// --layer L --head H --query Q [--key K] [--writes] [--target TOKEN] [--json FILE|-]`:
// why a head attends where it does — the pre-softmax score of query Q on key K (default:
// the key it attends to most and the runner-up) split exactly into (query-side component ×
// key-side component) terms (model/explain.hpp: embed, pos_embed, each earlier head, each
// earlier MLP, bias; TransformerLens's decompose_resid / stack_head_results); with
// --writes, what the head writes at Q (per key: weight × v_k·W_O, hook_result, and its
// direct logit attribution); with --target, every head's and MLP's direct logit
// attribution to one next token at Q.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/layout.hpp"
#include "cli/model_budget.hpp"
#include "cli/model_stop.hpp"
#include "cli/model_load.hpp"
#include "cli/model_verbs.hpp"
#include "core/error.hpp"
#include "io/output_writer.hpp"
#include "io/terminal_safe.hpp"
#include "model/explain.hpp"
#include "trace/number_format.hpp"
#include "trace/table.hpp"

namespace attn::cli {

namespace {

struct explain_options {
    std::string checkpoint, tokens, text, tokenizer, json, target, dtype = "auto";
    long layer = -1, head = -1, query = -1, key = -1, versus = -1;
    bool writes = false;
    layout_options layout;
};

// "L0H1", "0_mlp" (TransformerLens's labels of stack_head_results / decompose_resid).
std::string short_label(const std::string& name) {
    if (name == "pos_embed") return "pos";
    if (name.rfind("blocks.", 0) != 0) return name;
    const std::size_t dot = name.find('.', 7);
    const std::string l = name.substr(7, dot - 7);
    if (name.find(".attn.head.") != std::string::npos) return "L" + l + "H" + name.substr(name.rfind('.') + 1);
    return l + "_mlp";
}

// Words for people: "layer 0 head 1's output".
std::string component_words(const std::string& name) {
    if (name == "embed") return "the token embedding";
    if (name == "pos_embed") return "the position embedding";
    if (name == "bias") return "the biases";
    const std::size_t dot = name.find('.', 7);
    const std::string l = name.substr(7, dot - 7);
    if (name.find(".attn.head.") != std::string::npos) return "layer " + l + " head " + name.substr(name.rfind('.') + 1) + "'s output";
    return "layer " + l + "'s MLP output";
}

// Indices of the k entries of largest |importance|, in their original order.
std::vector<std::size_t> largest(const std::vector<double>& importance, std::size_t k) {
    std::vector<std::size_t> idx(importance.size());
    std::iota(idx.begin(), idx.end(), std::size_t(0));
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return std::abs(importance[a]) > std::abs(importance[b]); });
    idx.resize(std::min(k, idx.size()));
    std::sort(idx.begin(), idx.end());
    return idx;
}

// The terms as rows (query side) × columns (key side): the largest shown, the rest
// summed into "other", a total row and column.
std::string term_table(const model::score_decomposition& d, const trace::style& st) {
    const std::size_t n = d.components.size();
    std::vector<double> row_size(n, 0.0), col_size(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            row_size[i] = std::max(row_size[i], std::abs(d.terms[i][j]));
            col_size[j] = std::max(col_size[j], std::abs(d.terms[i][j]));
        }
    const std::size_t fit = st.width > 36 ? (st.width - 14) / 11 : 3;  // columns of up to 11 characters beside the labels
    const std::size_t ncol = n <= fit - 1 ? n : std::max<std::size_t>(1, fit - 2);
    const std::size_t nrow = n <= 12 ? n : 10;
    const auto rows = largest(row_size, nrow), cols = largest(col_size, ncol);
    auto in = [](const std::vector<std::size_t>& v, std::size_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    trace::table t;
    t.title = "Terms of the score: query side (rows) × key side (columns)";
    t.corner = "query \\ key";
    for (auto j : cols) t.col_labels.push_back(short_label(d.components[j]));
    if (cols.size() < n) t.col_labels.push_back("other");
    t.col_labels.push_back("total");
    auto add_row = [&](const std::string& label, const std::vector<std::size_t>& from) {
        t.row_labels.push_back(label);
        std::vector<double> cells(cols.size() + 1, 0.0);  // [shown columns + other]
        double total = 0;
        for (auto i : from)
            for (std::size_t j = 0; j < n; ++j) {
                const auto at = std::find(cols.begin(), cols.end(), j);
                cells[at == cols.end() ? cols.size() : static_cast<std::size_t>(at - cols.begin())] += d.terms[i][j];
                total += d.terms[i][j];
            }
        if (cols.size() == n) cells.pop_back();
        cells.push_back(total);
        t.cells.emplace_back();
        for (double v : cells) t.cells.back().push_back(trace::fixed(v, 4));
    };
    for (auto i : rows) add_row(short_label(d.components[i]), {i});
    std::vector<std::size_t> rest, all(n);
    std::iota(all.begin(), all.end(), std::size_t(0));
    for (std::size_t i = 0; i < n; ++i)
        if (!in(rows, i)) rest.push_back(i);
    if (!rest.empty()) add_row("other", rest);
    add_row("total", all);
    t.shape = fmt::format("[{} × {}] components", n, n);
    return trace::render(t, st);
}

// The few largest terms in words, each with its share of the score.
std::string largest_in_words(const model::score_decomposition& d, std::size_t count) {
    struct cell { double v; std::size_t i, j; };
    std::vector<cell> cells;
    for (std::size_t i = 0; i < d.terms.size(); ++i)
        for (std::size_t j = 0; j < d.terms[i].size(); ++j) cells.push_back({d.terms[i][j], i, j});
    std::stable_sort(cells.begin(), cells.end(), [](const cell& a, const cell& b) { return std::abs(a.v) > std::abs(b.v); });
    std::string out = "Largest terms:\n";
    for (std::size_t k = 0; k < std::min(count, cells.size()); ++k) {
        const cell& c = cells[k];
        const bool share = std::abs(d.sum) >= 0.05 * std::abs(cells.front().v) && std::abs(d.sum) > 0;
        out += fmt::format("  {} at the key × {} at the query: {}{}\n", component_words(d.components[c.j]),
                           component_words(d.components[c.i]), trace::signed_fixed(c.v, 4),
                           share ? fmt::format(" ({}% of the score)", trace::fixed(100.0 * c.v / d.sum, 0)) : "");
    }
    return out;
}

std::string position_words(const token_input& in, std::size_t pos) {
    return fmt::format("{} ({})", pos, in.labels[0][pos]);
}

std::string explain_one(const model::score_decomposition& d, const token_input& in, const trace::style& st, bool f64) {
    const int dec = f64 ? 12 : 6;
    std::string out = fmt::format("Layer {} head {}: query {} on key {} · weight {} (hook_pattern)\n", d.layer, d.head,
                                  position_words(in, d.query), position_words(in, d.key), trace::fixed(d.weight, 4));
    out += term_table(d, st) + "\n";
    out += fmt::format("Sum of the terms:  {}\nThe model's score: {}  (blocks.{}.attn.hook_attn_scores)\n",
                       trace::fixed(d.sum, dec), trace::fixed(d.model_score, dec), d.layer);
    return out + largest_in_words(d, 3);
}

// --versus: the same table for score(Q, K) − score(Q, other).
std::string versus_one(const model::score_decomposition& d, std::size_t other, const token_input& in, const trace::style& st,
                       bool f64) {
    const int dec = f64 ? 12 : 6;
    std::string out = fmt::format("Why key {} rather than key {}: score(query {}, key {}) − score(query {}, key {})\n",
                                  position_words(in, d.key), position_words(in, other), d.query, d.key, d.query, other);
    out += term_table(d, st) + "\n";
    out += fmt::format("Sum of the terms:        {}\nThe model's difference:  {}\n", trace::fixed(d.sum, dec), trace::fixed(d.model_score, dec));
    std::string words = largest_in_words(d, 3);
    const std::string from = "of the score)";
    for (std::size_t at = words.find(from); at != std::string::npos; at = words.find(from, at))
        words.replace(at, from.size(), "of the difference)");
    return out + words;
}

std::string json_number(double v) { return std::isfinite(v) ? fmt::format("{:.17g}", v) : "null"; }

std::string decomposition_json(const model::score_decomposition& d) {
    std::string s = fmt::format("{{\"layer\": {}, \"head\": {}, \"query\": {}, \"key\": {}, \"score\": {}, \"model_score\": {}, "
                                "\"weight\": {}, \"terms\": [",
                                d.layer, d.head, d.query, d.key, json_number(d.sum), json_number(d.model_score), json_number(d.weight));
    bool first = true;
    for (std::size_t i = 0; i < d.terms.size(); ++i)
        for (std::size_t j = 0; j < d.terms[i].size(); ++j) {
            s += fmt::format("{}\n  {{\"query_side\": \"{}\", \"key_side\": \"{}\", \"value\": {}}}", first ? "" : ",",
                             d.components[i], d.components[j], json_number(d.terms[i][j]));
            first = false;
        }
    return s + "]";
}

// {"score": …, "terms": […]} for the first key; the runner-up (no --key) as "runner_up", or
// --versus's difference as "versus" (its "score": the difference, "key": the first key);
// extra: more members (",\n\"dla\": …") for --target and --writes.
void write_json(const std::vector<model::score_decomposition>& ds, bool versus, const std::string& extra, const std::string& path) {
    std::string s = decomposition_json(ds[0]);
    if (ds.size() > 1) s += ",\n\"" + std::string(versus ? "versus" : "runner_up") + "\": " + decomposition_json(ds[1]) + "}";
    s += extra + "}\n";
    io::staged_file out(path);
    out.write(s);
    out.commit();
    if (!io::is_stdout(path)) std::cerr << "attn model explain: wrote " << io::terminal_safe(path) << "\n";
}

// The k tokens a direct logit attribution raises (up) or lowers most, as JSON pairs.
std::string tokens_json(const std::vector<double>& logits, bool up, std::size_t k) {
    std::vector<std::size_t> idx(logits.size());
    std::iota(idx.begin(), idx.end(), std::size_t(0));
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return up ? logits[a] > logits[b] : logits[a] < logits[b]; });
    std::string s = "[";
    for (std::size_t i = 0; i < std::min(k, idx.size()); ++i)
        s += fmt::format("{}{{\"token\": {}, \"value\": {}}}", i ? ", " : "", idx[i], json_number(logits[idx[i]]));
    return s + "]";
}

template <class T>
std::string writes_json(const model::model_params<T>& p, const model::forward_record<T>& r, std::size_t L, std::size_t H,
                        std::size_t q) {
    const auto ws = model::head_writes(p, r, L, H, q);
    std::vector<double> whole(p.config.n_embd, 0.0);  // [C]
    std::string s = ",\n\"writes\": {\"keys\": [";
    for (const auto& w : ws) {
        for (std::size_t i = 0; i < whole.size(); ++i) whole[i] += w.value[i];
        const auto logits = model::direct_logits(p, r, q, w.value, false);
        s += fmt::format("{}\n  {{\"key\": {}, \"weight\": {}, \"promotes\": {}, \"demotes\": {}}}", w.key ? "," : "", w.key,
                         json_number(w.weight), tokens_json(logits, true, 5), tokens_json(logits, false, 5));
    }
    const auto logits = model::direct_logits(p, r, q, whole, false);
    return s + fmt::format("],\n\"head_output\": {{\"promotes\": {}, \"demotes\": {}}}}}", tokens_json(logits, true, 5),
                           tokens_json(logits, false, 5));
}

template <class T>
std::string target_json(const model::model_params<T>& p, const model::forward_record<T>& r, std::size_t q, int target) {
    const auto a = model::attribute_logit(p, r, q, static_cast<std::size_t>(target));
    std::string s = fmt::format(",\n\"dla\": {{\"target\": {}, \"position\": {}, \"logit\": {}, \"components\": [", target, q,
                                json_number(a.model_logit));
    for (std::size_t i = 0; i < a.components.size(); ++i)
        s += fmt::format("{}{{\"name\": \"{}\", \"value\": {}}}", i ? ", " : "", a.components[i], json_number(a.values[i]));
    return s + "]}";
}

// --writes: per key, weight × (v_k · W_O) and the tokens its direct logit attribution
// promotes and demotes most; then the head's whole output at Q.
template <class T>
std::string writes_view(const model::model_params<T>& p, const model::forward_record<T>& r, const token_input& in,
                        std::size_t L, std::size_t H, std::size_t q, const trace::style& st) {
    const auto ws = model::head_writes(p, r, L, H, q);
    auto top_tokens = [&](const std::vector<double>& logits, bool up) {
        std::vector<std::size_t> idx(logits.size());
        std::iota(idx.begin(), idx.end(), std::size_t(0));
        std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return up ? logits[a] > logits[b] : logits[a] < logits[b]; });
        return idx;
    };
    trace::table t;
    t.title = fmt::format("What layer {} head {} writes at query {}: per key, weight × (v_k · W_O)", L, H, position_words(in, q));
    t.corner = "key";
    t.col_labels = {"weight", "promotes most", "DLA", "demotes most", "DLA"};
    std::vector<std::size_t> order(ws.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ws[a].weight > ws[b].weight; });
    order.resize(std::min<std::size_t>(order.size(), 8));
    std::vector<double> whole(p.config.n_embd, 0.0);  // [C] the head's output (hook_result)
    for (const auto& w : ws)
        for (std::size_t i = 0; i < whole.size(); ++i) whole[i] += w.value[i];
    for (auto k : order) {
        const auto logits = model::direct_logits(p, r, q, ws[k].value, false);
        const std::size_t up = top_tokens(logits, true)[0], down = top_tokens(logits, false)[0];
        t.row_labels.push_back(position_words(in, ws[k].key));
        t.cells.push_back({trace::fixed(ws[k].weight, 4), in.label(static_cast<int>(up)), trace::signed_fixed(logits[up], 3),
                           in.label(static_cast<int>(down)), trace::signed_fixed(logits[down], 3)});
    }
    t.shape = fmt::format("[{} of {} keys]", order.size(), ws.size());
    std::string out = trace::render(t, st) + "\n";
    const auto logits = model::direct_logits(p, r, q, whole, false);
    const auto up = top_tokens(logits, true), down = top_tokens(logits, false);
    std::string promoted, demoted;
    for (std::size_t k = 0; k < std::min<std::size_t>(5, up.size()); ++k) {
        promoted += fmt::format(" {} {}", in.label(static_cast<int>(up[k])), trace::signed_fixed(logits[up[k]], 3));
        demoted += fmt::format(" {} {}", in.label(static_cast<int>(down[k])), trace::signed_fixed(logits[down[k]], 3));
    }
    out += "The whole head's output (Σ over keys, hook_result), its direct logit attribution\n"
           "through ln_final with the forward's scale at this position:\n";
    return out + "  promotes:" + promoted + "\n  demotes: " + demoted + "\n";
}

// --target: every head's and MLP's direct logit attribution to one token at Q, by layer.
template <class T>
std::string target_view(const model::model_params<T>& p, const model::forward_record<T>& r, const token_input& in,
                        std::size_t q, int target, const trace::style& st, bool f64) {
    const model::architecture& c = p.config;
    const auto a = model::attribute_logit(p, r, q, static_cast<std::size_t>(target));
    trace::table t;
    t.title = fmt::format("Direct logit attribution to {} at position {}, by layer", in.label(target), position_words(in, q));
    t.corner = "layer";
    for (std::size_t h = 0; h < c.n_head; ++h) t.col_labels.push_back("head " + std::to_string(h));
    if (c.has_mlp()) t.col_labels.push_back("MLP");
    std::vector<std::string> rest;
    for (std::size_t l = 0; l < c.n_layer; ++l) {
        t.row_labels.push_back(std::to_string(l));
        t.cells.emplace_back();
        for (std::size_t i = 0; i < a.components.size(); ++i)
            if (a.components[i].rfind("blocks." + std::to_string(l) + ".", 0) == 0) t.cells.back().push_back(trace::signed_fixed(a.values[i], 4));
    }
    for (std::size_t i = 0; i < a.components.size(); ++i)
        if (a.components[i].rfind("blocks.", 0) != 0) rest.push_back(a.components[i] + " " + trace::signed_fixed(a.values[i], 4));
    t.shape = fmt::format("[{} × {}]", c.n_layer, t.col_labels.size());
    const double sum = std::accumulate(a.values.begin(), a.values.end(), 0.0);
    return trace::render(t, st) + fmt::format("{}\n", fmt::join(rest, " · ")) +
           fmt::format("Sum: {} · the model's logit: {}\n", trace::fixed(sum, f64 ? 12 : 6), trace::fixed(a.model_logit, f64 ? 12 : 6));
}

void check_choice(const explain_options& o, const model::architecture& c, std::size_t P) {
    if (static_cast<std::size_t>(o.layer) >= c.n_layer)
        throw attn::error(fmt::format("--layer {} does not exist: the model has {} layers (0..{})", o.layer, c.n_layer, c.n_layer - 1));
    if (static_cast<std::size_t>(o.head) >= c.n_head)
        throw attn::error(fmt::format("--head {} does not exist: the model has {} head{} (0..{})", o.head, c.n_head, c.n_head == 1 ? "" : "s", c.n_head - 1));
    if (static_cast<std::size_t>(o.query) >= P)
        throw attn::error(fmt::format("--query {} does not exist: the input has {} positions (0..{})", o.query, P, P - 1));
    if (o.versus > o.query)
        throw attn::error(fmt::format("--versus {} comes after --query {}: a causal model masks it (its score is -inf)", o.versus, o.query));
    if (o.key > o.query)
        throw attn::error(fmt::format("--key {} comes after --query {}: a causal model masks it (its score is -inf)", o.key, o.query));
}

template <class T>
void explain_with(const model::model_params<T>& p, const loaded_model& m, const token_input& in, const explain_options& o) {
    const bool f64 = std::is_same<T, double>::value;
    const auto r = model::record_run(p, in.ids[0]);
    const std::size_t L = static_cast<std::size_t>(o.layer), H = static_cast<std::size_t>(o.head), q = static_cast<std::size_t>(o.query);
    const int target = o.target.empty() ? -1 : token_id(in, o.target, "--target", p.config.vocab_size);
    std::vector<std::size_t> keys = o.key >= 0 ? std::vector<std::size_t>{static_cast<std::size_t>(o.key)}
                                               : model::top_keys(r, p.config, L, H, q, 2);
    std::vector<model::score_decomposition> ds;
    for (auto k : keys) ds.push_back(model::explain_score(p, r, L, H, q, k));
    if (o.versus >= 0) {  // the first key against --versus, in place of the runner-up
        ds.resize(1);
        ds.push_back(model::explain_difference(p, r, L, H, q, keys[0], static_cast<std::size_t>(o.versus)));
    }
    if (!o.json.empty()) {
        write_json(ds, o.versus >= 0, (o.writes ? writes_json(p, r, L, H, q) : "") + (target >= 0 ? target_json(p, r, q, target) : ""), o.json);
        if (io::is_stdout(o.json)) return;
    }
    const trace::style st = make_style(o.layout);
    std::string out = "Model: " + model_summary(m) + "\nTokens:";
    for (const auto& t : in.labels[0]) out += " " + t;
    out += "\nEach score = Σ (query-side component · key-side component) / √d_head,\n"
           "the layer norm's scale at each position taken from the forward.\n"
           "L0H1: layer 0 head 1's output (hook_result); 0_mlp: layer 0's MLP;\n"
           "bias: the biases b_O, the norm's bias, b_Q and b_K.\n\n";
    for (std::size_t i = 0; i < ds.size(); ++i)
        out += (o.versus >= 0 && i == 1 ? versus_one(ds[i], static_cast<std::size_t>(o.versus), in, st, f64)
                                        : explain_one(ds[i], in, st, f64)) + "\n";
    if (o.writes) out += writes_view(p, r, in, L, H, q, st) + "\n";
    if (target >= 0) out += target_view(p, r, in, q, target, st, f64);
    print_fitted(out, st);
}

void run_model_explain(const explain_options& o) {
    const token_input in = read_tokens(o.tokens.empty() ? std::vector<std::string>{} : std::vector<std::string>{o.tokens}, o.text,
                                       o.tokenizer, o.checkpoint);
    const loaded_model m = load_model(o.checkpoint, o.dtype);
    if (in.ids[0].size() > m.config().n_positions)
        throw attn::error(fmt::format("{} tokens do not fit the model's {} positions", in.ids[0].size(), m.config().n_positions));
    check_choice(o, m.config(), in.ids[0].size());
    charge_forwards(m.config(), 1, in.ids[0].size(), o.text.empty() ? "--tokens" : "--text");
    with_params(m, [&](const auto& p) { explain_with(p, m, in, o); });
}

void setup_model_explain(CLI::App& model) {
    auto o = std::make_shared<explain_options>();
    auto* sub = model.add_subcommand("explain", "Why a head attends where it does: a score split exactly into query-side × key-side "
                                                "components (decompose_resid, stack_head_results), what the head writes, direct logit attribution");
    sub->add_option("CKPT", o->checkpoint, "The checkpoint (.safetensors or .gguf; GPT-2 or Llama family), or a built-in model's name (attn model list)")->required();
    sub->add_option("--tokens", o->tokens, "Token ids of the sequence, comma-separated");
    sub->add_option("--text", o->text, "Text to run, tokenized with --tokenizer");
    sub->add_option("--tokenizer", o->tokenizer, "Tokenizer: a folder (tokenizer.json, or vocab.json + merges.txt), a tokenizer.json or a GGUF");
    sub->add_option("--layer", o->layer, "The layer of the head (from 0, as blocks.L)")->required()->check(CLI::NonNegativeNumber);
    sub->add_option("--head", o->head, "The head (from 0)")->required()->check(CLI::NonNegativeNumber);
    sub->add_option("--query", o->query, "The query position (from 0)")->required()->check(CLI::NonNegativeNumber);
    sub->add_option("--key", o->key, "The key position (default: the key attended to most, and the runner-up)")->check(CLI::NonNegativeNumber);
    sub->add_option("--versus", o->versus, "Also why the key rather than this one: the difference of the two scores split the same way")
        ->check(CLI::NonNegativeNumber);
    sub->add_flag("--writes", o->writes, "Also what the head writes at the query: per key weight × (v·W_O) (hook_result) and its direct logit attribution");
    sub->add_option("--target", o->target, "Also every head's and MLP's direct logit attribution to this next token (an id or a token) at the query");
    sub->add_option("--json", o->json, "Write the decomposition as JSON to FILE, or '-' for stdout: {\"score\", \"terms\": [{\"query_side\", \"key_side\", \"value\"}]}");
    add_dtype_option(*sub, o->dtype);
    add_budget_option(*sub);
    add_layout_options(*sub, o->layout);
    sub->callback([o] {
        stop_on_interrupt();  // Ctrl-C: within a second, exit 130 (cli/model_stop)
        run_model_explain(*o);
    });
}

}  // namespace

static const bool model_explain_registered = register_model_verb({"explain", 35, setup_model_explain});

}  // namespace attn::cli
