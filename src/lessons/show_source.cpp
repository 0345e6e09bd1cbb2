// lessons/show_source.cpp — show kinds that write out a formula or a table of the
// source documents with numbers attn computes: `weighted_sum`, one query's
// h_i = Σ_j α_ij v_j term by term (CS224N notes, eq. 7), and `cross_cost`, the
// cross-attention chapter's complexity table counted for given N_dec, N_enc
// (core/attention_cost.hpp), with each size's share of an N_enc × N_enc matrix.
#include <fmt/format.h>

#include "core/attention_cost.hpp"
#include "lessons/show_kinds.hpp"
#include "trace/number_format.hpp"
#include "trace/table.hpp"
#include "trace/text_width.hpp"

namespace attn::lessons::show {

namespace {

// "[1.0, 0.0, …, 0.5]": a value row, elided past 8 entries unless --full.
std::string value_row(const matrix& v, std::size_t j, bool full) {
    std::vector<std::string> items;
    for (std::size_t c = 0; c < v.shape(1); ++c) items.push_back(trace::compact(v(j, c)));
    std::string out;
    for (const auto& it : trace::elide_items(items, 4, 2, full || items.size() <= 8)) out += (out.empty() ? "" : ", ") + it;
    return "[" + out + "]";
}

std::string show_weighted_sum(const lesson& l, const show_item& item, const trace::style& st) {
    const attention_run& run = need_run(l, item);
    const std::size_t i = need_query(run, item);
    const int dp = opt_decimals(item, 4);
    const matrix& a = run.steps.weights;  // [n_q, n_k]
    const matrix& v = run.steps.v;        // [n_k, d_v]
    const std::string& q = run.labels.query_tokens[i];
    const auto& keys = run.labels.key_tokens;
    std::size_t key_w = 0;
    for (const auto& k : keys) key_w = std::max(key_w, trace::display_width(k));

    const std::string lhs = "  h_" + q + " = ";
    const std::string pad(trace::display_width(lhs) - 2, ' ');
    std::string out = lhs + "Σ_j α_" + q + ",j · v_j\n";
    std::vector<std::string> terms;
    for (std::size_t j = 0; j < keys.size(); ++j)
        terms.push_back(trace::fixed(a(i, j), dp) + " · v_" + trace::pad_right(keys[j], key_w) + " " + value_row(v, j, st.full));
    const auto shown = trace::elide_items(terms, 5, 5, st.full || terms.size() <= 12);
    for (std::size_t t = 0; t < shown.size(); ++t)
        out += pad + (t == 0 ? "=   " : shown[t] == "…" ? "    " : "  + ") + shown[t] + "\n";
    double sum = 0.0;
    for (std::size_t j = 0; j < keys.size(); ++j) sum += a(i, j);
    out += pad + "= " + trace::bracketed_row(run.steps.output, i, dp) + "\n";
    out += fmt::format("  the weights α_{},j add up to {}\n", q, trace::fixed(sum, dp));
    return out;
}

std::size_t whole(const toml::node& n, const show_item& item, const std::string& key) {
    if (!n.is_integer() || *n.value<int64_t>() < 1 || *n.value<int64_t>() > 10000000)
        bad(item, "'" + key + "' must hold whole numbers from 1 to 10000000", key);
    return static_cast<std::size_t>(*n.value<int64_t>());
}

// 0.2 → "20%", 0.002 → "0.2%", 1 → "100%".
std::string percent(double share) {
    std::string s = fmt::format("{:.1f}", share * 100.0);
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
    return s + "%";
}

std::string show_cross_cost(const lesson&, const show_item& item, const trace::style& st) {
    const toml::array* sizes = item.spec->get("sizes") ? item.spec->get("sizes")->as_array() : nullptr;
    if (!sizes || sizes->empty())
        bad(item, "needs 'sizes', a list of [N_dec, N_enc] pairs such as [[100, 500], [500, 500]]", "sizes");
    const toml::node* dn = item.spec->get("d");
    if (!dn) bad(item, "needs 'd' (a whole number, d_k = d_v)");
    const std::size_t d = whole(*dn, item, "d");
    trace::table t;
    t.title = opt_string(item, "title", fmt::format("Counted cost of one cross-attention, d_k = d_v = {}", d));
    t.axes = "rows: N_dec × N_enc · last column: the weights' size against N_enc × N_enc";
    t.corner = "N_dec × N_enc";
    t.col_labels = {"weights", "Q·Kᵀ", "exp", "A·V", "of N_enc²"};
    t.shape = fmt::format("[{} × 5]", sizes->size());
    for (const auto& e : *sizes) {
        const toml::array* pair = e.as_array();
        if (!pair || pair->size() != 2) bad(item, "'sizes' must hold [N_dec, N_enc] pairs", "sizes");
        const std::size_t n_dec = whole(*pair->get(0), item, "sizes"), n_enc = whole(*pair->get(1), item, "sizes");
        const attention_cost c = attention_cost_of(n_dec, n_enc, d, d);
        const attention_cost square = attention_cost_of(n_enc, n_enc, d, d);
        t.row_labels.push_back(fmt::format("{} × {}", n_dec, n_enc));
        t.cells.push_back({trace::grouped(c.score_entries), trace::grouped(c.score_macs), trace::grouped(c.softmax_exps), trace::grouped(c.output_macs),
                           percent(static_cast<double>(c.score_entries) / static_cast<double>(square.score_entries))});
    }
    return trace::render(t, st) +
           "  weights: numbers held at once · Q·Kᵀ, A·V: multiply-adds · exp: one per score\n";
}

// The checks (show_kinds.hpp): what each kind refuses, found without drawing.

void check_cross_cost(const lesson& l, const show_item& item) {
    check_references(l, item);
    const toml::array* sizes = item.spec->get("sizes") ? item.spec->get("sizes")->as_array() : nullptr;
    if (!sizes || sizes->empty())
        bad(item, "needs 'sizes', a list of [N_dec, N_enc] pairs such as [[100, 500], [500, 500]]", "sizes");
    const toml::node* dn = item.spec->get("d");
    if (!dn) bad(item, "needs 'd' (a whole number, d_k = d_v)");
    (void)whole(*dn, item, "d");
    for (const auto& e : *sizes) {
        const toml::array* pair = e.as_array();
        if (!pair || pair->size() != 2) bad(item, "'sizes' must hold [N_dec, N_enc] pairs", "sizes");
        (void)whole(*pair->get(0), item, "sizes");
        (void)whole(*pair->get(1), item, "sizes");
    }
}

}  // namespace

std::vector<show_kind> source_kinds() {
    return {
        {"weighted_sum", show_weighted_sum, {"run", "token"}, {"decimals"},
         "one query's output h_i = Σ_j α_ij v_j written out term by term (CS224N notes, eq. 7)"},
        {"cross_cost", show_cross_cost, {"sizes", "d"}, {"title"},
         "the cross-attention chapter's complexity table counted for [N_dec, N_enc] pairs, with each one's share of N_enc²", check_cross_cost},
    };
}

}  // namespace attn::lessons::show
