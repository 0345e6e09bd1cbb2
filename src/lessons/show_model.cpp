// lessons/show_model.cpp — show kinds for the lessons past single-head attention:
// the √d growth of random dot products (lesson 02), how peaked softmax rows are
// (lesson 02), one query's weights in two word orders (lesson 08), a block's
// sub-layers with their shapes (lessons 10–11), decoding steps with their caches
// and FLOP counts (lesson 13) and the shape tables of seed 004 (lesson 12).
#include <cmath>

#include <fmt/format.h>

#include "core/prng.hpp"
#include "lessons/lesson_parts.hpp"
#include "lessons/readable_name.hpp"
#include "lessons/show_kinds.hpp"
#include "trace/number_format.hpp"
#include "trace/shape_table.hpp"
#include "trace/table.hpp"

namespace attn::lessons::show {

namespace {

std::int64_t need_int(const show_item& item, const std::string& key, std::int64_t lo, std::int64_t hi) {
    const toml::node* n = item.spec->get(key);
    if (!n) bad(item, "needs '" + key + "' (a whole number)");
    if (!n->is_integer() || *n->value<int64_t>() < lo || *n->value<int64_t>() > hi)
        bad(item, fmt::format("'{}' must be a whole number from {} to {}", key, lo, hi), key);
    return *n->value<int64_t>();
}

// q·k for random q, k ~ N(0, I_d): mean 0, variance d, so the spread grows like √d.
std::string show_dot_growth(const lesson&, const show_item& item, const trace::style& st) {
    const toml::array* dims = item.spec->get("dims") ? item.spec->get("dims")->as_array() : nullptr;
    if (!dims || dims->empty()) bad(item, "needs 'dims', a list of dimensions such as [4, 64, 512]", "dims");
    const auto samples = static_cast<std::size_t>(need_int(item, "samples", 2, 200000));
    const auto seed = static_cast<std::uint64_t>(need_int(item, "seed", 0, INT64_MAX));
    prng g(seed);
    trace::table t;
    t.title = opt_string(item, "title", fmt::format("q·k of {} random pairs per d (attn's PRNG, seed {})", samples, seed));
    t.axes = "rows: dimension d · q, k with N(0, 1) entries";
    t.shape = fmt::format("[{} × 4]", dims->size());
    t.corner = "d";
    t.col_labels = {"√d", "mean of q·k", "std of q·k", "std of q·k/√d"};
    for (const auto& e : *dims) {
        if (!e.is_integer() || *e.value<int64_t>() < 1 || *e.value<int64_t>() > 4096)
            bad(item, "'dims' must hold whole numbers from 1 to 4096", "dims");
        const auto d = static_cast<std::size_t>(*e.value<int64_t>());
        double sum = 0, sum2 = 0;
        for (std::size_t s = 0; s < samples; ++s) {
            double dot = 0;
            for (std::size_t i = 0; i < d; ++i) {
                const double q = g.normal(), k = g.normal();
                dot += q * k;
            }
            sum += dot;
            sum2 += dot * dot;
        }
        const double mean = sum / static_cast<double>(samples);
        const double sd = std::sqrt(std::max(0.0, sum2 / static_cast<double>(samples) - mean * mean));
        const double root = std::sqrt(static_cast<double>(d));
        t.row_labels.push_back(std::to_string(d));
        t.cells.push_back({trace::fixed(root, 2), trace::fixed(mean, 2), trace::fixed(sd, 2), trace::fixed(sd / root, 2)});
    }
    return trace::render(t, st);
}

// For each query: the largest weight and the entropy of its row, in several runs.
std::string show_spread(const lesson& l, const show_item& item, const trace::style& st) {
    const auto names = need_strings(item, "runs", 0);
    std::vector<const attention_run*> runs;
    for (const auto& n : names) {
        auto it = l.runs.find(n);
        if (it == l.runs.end()) bad(item, "run '" + n + "' is not in [runs]", "runs");
        runs.push_back(&it->second);
        if (it->second.steps.n_q() != runs.front()->steps.n_q()) bad(item, "the runs must have the same queries", "runs");
    }
    trace::table t;
    t.title = opt_string(item, "title", "How peaked each softmax row is");
    t.axes = "rows: queries · max weight (1 = all on one key) and entropy in bits (0 = one key, log2 n = uniform)";
    t.shape = fmt::format("[{} × {}]", runs.front()->steps.n_q(), 2 * runs.size());
    t.corner = "query";
    for (const auto* r : runs) {
        t.col_labels.push_back(r->labels.title + ": max");
        t.col_labels.push_back(r->labels.title + ": entropy");
    }
    t.row_labels = runs.front()->labels.query_tokens;
    for (std::size_t i = 0; i < runs.front()->steps.n_q(); ++i) {
        t.cells.emplace_back();
        for (const auto* r : runs) {
            double mx = 0, h = 0;
            for (std::size_t j = 0; j < r->steps.n_k(); ++j) {
                const double w = r->steps.weights(i, j);
                mx = std::max(mx, w);
                if (w > 0) h -= w * std::log2(w);
            }
            t.cells.back().push_back(trace::fixed(mx, 4));
            t.cells.back().push_back(trace::fixed(h, 3));
        }
    }
    return trace::render(t, st);
}

// One query in two runs whose keys are the same tokens in another order.
std::string show_permutation(const lesson& l, const show_item& item, const trace::style& st) {
    const auto names = need_strings(item, "runs", 2);
    std::vector<const attention_run*> r;
    for (const auto& n : names) {
        auto it = l.runs.find(n);
        if (it == l.runs.end()) bad(item, "run '" + n + "' is not in [runs]", "runs");
        r.push_back(&it->second);
    }
    if (r[0]->steps.n_k() != r[1]->steps.n_k()) bad(item, "the two runs must have as many keys", "runs");
    const std::string token = need_string(item, "token");
    std::size_t qa = 0, qb = 0;
    try {
        qa = find_query(*r[0], token);
        qb = find_query(*r[1], token);
    } catch (const error& e) {  // the token names no query
        bad(item, e.what(), "token");
    }
    const std::size_t n = r[0]->steps.n_k();
    trace::table t;
    t.title = opt_string(item, "title", fmt::format("α for '{}' in both orders", token));
    t.axes = "rows: key positions · each sentence's key at that position and its weight";
    t.shape = fmt::format("[{} × 4]", n);
    t.corner = "position";
    const auto labels = item.spec->get("labels") ? need_strings(item, "labels", 2)
                                                 : std::vector<std::string>{readable_name(names[0]), readable_name(names[1])};
    t.col_labels = {labels[0], "α", labels[1], "α"};
    std::vector<double> wa, wb;
    for (std::size_t j = 0; j < n; ++j) {
        t.row_labels.push_back(std::to_string(j));  // positions count from 0, as everywhere
        wa.push_back(r[0]->steps.weights(qa, j));
        wb.push_back(r[1]->steps.weights(qb, j));
        t.cells.push_back({r[0]->labels.key_tokens[j], trace::fixed(wa.back(), 4), r[1]->labels.key_tokens[j],
                           trace::fixed(wb.back(), 4)});
    }
    // Same multiset of (token, weight) pairs?
    std::vector<std::pair<std::string, double>> pa, pb;
    for (std::size_t j = 0; j < n; ++j) {
        pa.emplace_back(r[0]->labels.key_tokens[j], wa[j]);
        pb.emplace_back(r[1]->labels.key_tokens[j], wb[j]);
    }
    std::sort(pa.begin(), pa.end());
    std::sort(pb.begin(), pb.end());
    double worst = 0;
    bool same_tokens = true;
    for (std::size_t j = 0; j < n; ++j) {
        same_tokens = same_tokens && pa[j].first == pb[j].first;
        worst = std::max(worst, std::fabs(pa[j].second - pb[j].second));
    }
    double out_diff = 0;
    for (std::size_t c = 0; c < r[0]->steps.d_v(); ++c)
        out_diff = std::max(out_diff, std::fabs(r[0]->steps.output(qa, c) - r[1]->steps.output(qb, c)));
    std::string out = trace::render(t, st);
    if (!same_tokens) out += "  the two runs do not hold the same key tokens\n";
    out += fmt::format("  each token's weight, matched by token: largest |difference| = {}\n",
                       worst < 5e-13 ? std::string("0 (the same numbers, reordered)") : fmt::format("{:.4f}", worst));
    out += fmt::format("  output h_{}: largest |difference| = {}\n", token,
                       out_diff < 5e-13 ? std::string("0 (identical)") : fmt::format("{:.4f}", out_diff));
    return out;
}

const block_result& need_block(const lesson& l, const show_item& item) {
    const std::string name = need_string(item, "block");
    if (!l.parts || !l.parts->blocks.count(name)) bad(item, "block '" + name + "' is not in [blocks]", "block");
    return l.parts->blocks.at(name);
}

// Every sub-layer of a block: its symbolic shape, its numbers, the first token's output.
std::string show_sublayers(const lesson& l, const show_item& item, const trace::style& st) {
    const block_result& b = need_block(l, item);
    const std::vector<sublayer_record>* subs = nullptr;
    if (b.encoder) subs = &b.encoder->sublayers;
    if (b.decoder) subs = &b.decoder->sublayers;
    if (!subs) bad(item, "block '" + need_string(item, "block") + "' is not an encoder_block or decoder_block", "block");
    // Post-norm normalises the stream after each addition; pre-norm never does:
    // its stream is the plain residual sum.
    const bool pre = (b.encoder && b.encoder->placement == norm_placement::pre) ||
                     (b.decoder && b.decoder->placement == norm_placement::pre);
    const std::string after = pre ? "after the residual addition" : "after Add & Norm";
    trace::table t;
    t.title = opt_string(item, "title", b.title + ": sub-layer by sub-layer");
    t.axes = "rows: sub-layers in order · shape of its output · the stream " + after + ", first token";
    t.shape = fmt::format("[{} × 3]", subs->size());
    t.corner = "sub-layer";
    t.col_labels = {"output shape", "numbers", "stream[" + b.query_tokens.front() + "] " + after};
    for (const auto& s : *subs) {
        t.row_labels.push_back(s.name);
        t.cells.push_back({to_string(s.shape), fmt::format("{} × {}", s.output.shape(0), s.output.shape(1)),
                           trace::bracketed_row(s.stream, 0, 3)});
    }
    return trace::render(t, st);
}

std::string show_decode_steps(const lesson& l, const show_item& item, const trace::style& st) {
    const block_result& b = need_block(l, item);
    if (b.kind != "decoding") bad(item, "block '" + need_string(item, "block") + "' is not a decoding block", "block");
    trace::table t;
    t.title = opt_string(item, "title", b.title + ": one token per step");
    t.axes = "rows: generation steps · cache rows, FLOPs of that step (1 multiply or add = 1 FLOP), cache size after it";
    t.shape = fmt::format("[{} × 8]", b.decoding.size());
    t.corner = "step";
    t.col_labels = {"self K,V rows", "cross K,V rows", "self-attn", "cross-attn", "FFN", "step total", "without cache",
                    "numbers cached"};
    for (std::size_t s = 0; s < b.decoding.size(); ++s) {
        const auto& c = b.decoding[s].counts;
        t.row_labels.push_back(fmt::format("{} {}", s + 1, b.query_tokens[s]));
        t.cells.push_back({std::to_string(c.self_cache_rows), std::to_string(b.decoding[s].cross_attention.n_k()),
                           std::to_string(c.flops_self_attention), std::to_string(c.flops_cross_attention),
                           std::to_string(c.flops_ffn), std::to_string(c.flops_total),
                           std::to_string(c.flops_without_cache), std::to_string(c.cache_values)});
    }
    std::string out = trace::render(t, st);
    std::uint64_t total = b.cross_kv_flops, naive = 0;
    for (const auto& d : b.decoding) {
        total += d.counts.flops_total;
        naive += d.counts.flops_without_cache;
    }
    const auto& last = b.decoding.back().counts;
    out += fmt::format("  encoder K, V for cross-attention, computed once before step 1: {} FLOPs\n", b.cross_kv_flops);
    out += fmt::format("  all {} steps with caches: {} FLOPs; recomputing everything each step: {} FLOPs\n",
                       b.decoding.size(), total, naive);
    out += fmt::format("  caches after the last step: {} numbers ({} bytes as doubles)\n", last.cache_values,
                       last.cache_bytes);
    return out;
}

std::string show_shape_table(const lesson&, const show_item& item, const trace::style& st) {
    const std::string preset = need_string(item, "table");
    symbol_values values;
    if (const toml::node* n = item.spec->get("values")) {
        const toml::table* v = n->as_table();
        if (!v) bad(item, "'values' must be an inline table such as { B = 2, d = 8 }", "values");
        for (const auto& [k, x] : *v) {
            if (!x.is_integer() || *x.value<int64_t>() <= 0) bad(item, "each value must be a positive whole number", "values");
            values[std::string(k.str())] = *x.value<int64_t>();
        }
    }
    try {
        return trace::render_shape_table(preset, values, st);
    } catch (const error& e) {  // an unknown table, or a symbol without a value (shape_eval_error)
        bad(item, e.what(), values.empty() ? "table" : "values");
    }
}

// The checks (show_kinds.hpp): what each kind refuses, found without drawing.

// 'dims': a non-empty list of whole numbers from 1 to 4096.
void check_dims(const show_item& item) {
    const toml::array* dims = item.spec->get("dims") ? item.spec->get("dims")->as_array() : nullptr;
    if (!dims || dims->empty()) bad(item, "needs 'dims', a list of dimensions such as [4, 64, 512]", "dims");
    for (const auto& e : *dims)
        if (!e.is_integer() || *e.value<int64_t>() < 1 || *e.value<int64_t>() > 4096)
            bad(item, "'dims' must hold whole numbers from 1 to 4096", "dims");
}

void check_dot_growth(const lesson& l, const show_item& item) {
    check_references(l, item);
    check_dims(item);
    (void)need_int(item, "samples", 2, 200000);
    (void)need_int(item, "seed", 0, INT64_MAX);
}

void check_spread(const lesson& l, const show_item& item) {
    check_references(l, item);
    const auto names = need_strings(item, "runs", 0);
    for (const auto& n : names)
        if (l.runs.at(n).steps.n_q() != l.runs.at(names.front()).steps.n_q())
            bad(item, "the runs must have the same queries", "runs");
}

void check_permutation(const lesson& l, const show_item& item) {
    check_references(l, item);
    const auto names = need_strings(item, "runs", 2);
    const attention_run& a = l.runs.at(names[0]);
    const attention_run& b = l.runs.at(names[1]);
    if (a.steps.n_k() != b.steps.n_k()) bad(item, "the two runs must have as many keys", "runs");
    const std::string token = need_string(item, "token");  // its own problem is reported as is
    try {
        (void)find_query(a, token);
        (void)find_query(b, token);
    } catch (const error& e) {  // the token names no query
        bad(item, e.what(), "token");
    }
    if (item.spec->get("labels")) (void)need_strings(item, "labels", 2);
}

void check_sublayers(const lesson& l, const show_item& item) {
    check_references(l, item);
    const block_result& b = need_block(l, item);
    if (!b.encoder && !b.decoder)
        bad(item, "block '" + need_string(item, "block") + "' is not an encoder_block or decoder_block", "block");
}

void check_decode_steps(const lesson& l, const show_item& item) {
    check_references(l, item);
    if (need_block(l, item).kind != "decoding")
        bad(item, "block '" + need_string(item, "block") + "' is not a decoding block", "block");
}

void check_shape_table(const lesson& l, const show_item& item) {
    check_references(l, item);
    const std::string preset = need_string(item, "table");
    const toml::node* n = item.spec->get("values");
    const toml::table* v = n ? n->as_table() : nullptr;
    if (n && !v) bad(item, "'values' must be an inline table such as { B = 2, d = 8 }", "values");
    if (v)
        for (const auto& [k, x] : *v)
            if (!x.is_integer() || *x.value<int64_t>() <= 0) bad(item, "each value must be a positive whole number", "values");
    try {
        (void)trace::shape_rows(preset);
    } catch (const error& e) {  // an unknown table
        bad(item, e.what(), "table");
    }
    if (v && !v->empty())  // with values, every symbol needs one
        for (const auto& sym : trace::shape_symbols(preset))
            if (!v->contains(sym)) bad(item, "the shape table '" + preset + "' needs a value for " + sym, "values");
}

}  // namespace

std::vector<show_kind> model_kinds() {
    return {
        {"dot_growth", show_dot_growth, {"dims", "samples", "seed"}, {"title"},
         "measures q·k of random vectors for each d: its spread grows like √d", check_dot_growth},
        {"spread", show_spread, {"runs"}, {"title"}, "per query: the largest weight and the entropy of the row, per run", check_spread},
        {"permutation", show_permutation, {"runs", "token"}, {"title", "labels"},
         "one query's weights in two runs whose keys are the same tokens reordered", check_permutation},
        {"sublayers", show_sublayers, {"block"}, {"title"},
         "each sub-layer of an encoder or decoder block with its shape and output", check_sublayers},
        {"decode_steps", show_decode_steps, {"block"}, {"title"},
         "a decoding block step by step: cache sizes and FLOPs with and without caches", check_decode_steps},
        {"shape_table", show_shape_table, {"table"}, {"values"},
         "seed 004's shape table (cross, multi_head, encoder_block, decoder_block, ffn), symbolic or with values", check_shape_table},
    };
}

}  // namespace attn::lessons::show
