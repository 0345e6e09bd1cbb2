// lessons/loader_runs.cpp — [runs.X]: one attention computation of the core with
// its masks, bias and labels. The run keeps every stage (attention_steps); the
// show items of the steps pick what to print.
#include <cmath>

#include "core/mask.hpp"
#include "core/shape_error.hpp"
#include "io/toml_read.hpp"
#include "lessons/loader_internal.hpp"
#include "trace/overflow_check.hpp"

namespace attn::lessons::detail {

const std::vector<std::string>& run_keys() {
    static const std::vector<std::string> keys = {
        "kind",     "title",    "q",      "k",      "v",           "query_tokens", "key_tokens",
        "query_side", "key_side", "q_name", "k_name", "v_name",     "mask",         "pad_keys",
        "causal",   "bias",     "masked_fill", "scale"};
    return keys;
}

std::vector<std::string> loader::token_list(const toml::table& r, const std::string& key, std::size_t n,
                                            const std::string& run) {
    auto name = rd.string(r, key, false);
    if (!name) {
        std::vector<std::string> fallback(n);
        for (std::size_t i = 0; i < n; ++i) fallback[i] = "t" + std::to_string(i);
        return fallback;
    }
    auto it = out.tokens.find(*name);
    if (it == out.tokens.end()) {
        std::vector<std::string> have;
        for (const auto& [k, v] : out.tokens) have.push_back(k);
        rd.fail(r.get(key), "'" + key + "' names token list '" + *name + "', which is not in [tokens]" +
                                hint_suffix(*name, have));
        return std::vector<std::string>(n, "?");
    }
    if (it->second.size() != n) {
        rd.fail(r.get(key), "run '" + run + "': token list '" + *name + "' has " + std::to_string(it->second.size()) +
                                " tokens but the matrix has " + std::to_string(n) + " rows");
        return std::vector<std::string>(n, "?");
    }
    return it->second;
}

bool loader::read_run(const std::string& name, const toml::table& r) {
    const std::size_t problems_before = rd.problems->size();
    rd.known_keys(r, "[runs." + name + "]", run_keys());
    const matrix* q = matrix_ref(r, "q", true);
    const matrix* k = matrix_ref(r, "k", true);
    const matrix* v = matrix_ref(r, "v", true);
    const std::string kind = rd.string(r, "kind", false).value_or("self");
    if (kind != "self" && kind != "causal" && kind != "cross")
        rd.fail(r.get("kind"), "'kind' must be self, causal or cross, found '" + kind + "'" +
                                   hint_suffix(kind, {"self", "causal", "cross"}));
    if (!q || !k || !v) return false;

    attention_run run;
    run.name = name;
    run.kind = kind;
    const bool causal = kind == "causal" || rd.boolean(r, "causal", false).value_or(false);
    auto& l = run.labels;
    l.title = rd.string(r, "title", false)
                  .value_or(kind == "cross" ? (causal ? "Causally masked cross-attention" : "Cross-attention")
                                            : causal ? "Causal self-attention" : "Self-attention");
    l.query_tokens = token_list(r, "query_tokens", q->shape(0), name);
    l.key_tokens = token_list(r, "key_tokens", k->shape(0), name);
    l.query_side = rd.string(r, "query_side", false).value_or(kind == "cross" ? "decoder queries" : "queries");
    l.key_side = rd.string(r, "key_side", false).value_or(kind == "cross" ? "encoder keys" : "keys");
    l.q_name = rd.string(r, "q_name", false).value_or(kind == "cross" ? "Q_dec" : "Q");
    l.k_name = rd.string(r, "k_name", false).value_or(kind == "cross" ? "K_enc" : "K");
    l.v_name = rd.string(r, "v_name", false).value_or(kind == "cross" ? "V_enc" : "V");

    attention_options opt;
    const std::size_t n_q = q->shape(0), n_k = k->shape(0);
    if (causal) opt.mask = causal_mask(n_q, n_k);
    if (const toml::node* m = r.get("mask")) {
        const toml::table* mt = m->as_table();
        if (!mt || (mt->contains("attend") == mt->contains("block"))) {
            rd.fail(m, "'mask' must name its polarity: mask.attend = [[...]] or mask.block = [[...]], not bare 0/1");
        } else {
            rd.known_keys(*mt, "[runs." + name + ".mask]", {"attend", "block"});
            const bool attend = mt->contains("attend");
            auto bm = rd.bool_matrix_value(mt->get(attend ? "attend" : "block"), "mask");
            if (bm && (bm->shape(0) != n_q || bm->shape(1) != n_k)) {
                rd.fail(m, "mask is [" + std::to_string(bm->shape(0)) + " × " + std::to_string(bm->shape(1)) +
                               "] but must be [n_q × n_k] = [" + std::to_string(n_q) + " × " + std::to_string(n_k) +
                               "]");
            } else if (bm) {
                bool_matrix a = *bm;  // [n_q, n_k]
                if (!attend)
                    for (auto& x : a) x = !x;
                opt.mask = opt.mask ? combine_masks(*opt.mask, a) : a;
            }
        }
    }
    if (const toml::node* p = r.get("pad_keys")) {
        if (auto idx = rd.numbers(p, "'pad_keys'")) {
            std::vector<bool> is_pad(n_k, false);  // [n_k]
            for (double i : *idx) {
                if (i < 0 || i >= static_cast<double>(n_k) || i != std::floor(i))
                    rd.fail(p, "pad_keys index " + std::to_string(i) + " is outside 0.." + std::to_string(n_k - 1));
                else
                    is_pad[static_cast<std::size_t>(i)] = true;
            }
            const bool_matrix pm = padding_mask(n_q, is_pad);  // [n_q, n_k]
            opt.mask = opt.mask ? combine_masks(*opt.mask, pm) : pm;
        }
    }
    if (r.contains("bias"))
        if (const matrix* b = matrix_ref(r, "bias", true)) opt.bias = *b;
    if (auto f = r.get("masked_fill")) {
        if (f->is_number()) opt.masked_fill = io::toml_number(*f);
        else rd.fail(f, "'masked_fill' must be a number, found " + toml_reader::type_name(f));
    }
    if (auto s = rd.number(r, "scale", false)) {
        if (*s <= 0) rd.fail(r.get("scale"), "'scale' must be positive");
        else opt.scale_divisor = *s;
    }
    // Computed even after a problem above, so shape errors are reported too.
    try {
        recipe_options ro;
        ro.mask = opt.mask;
        if (opt.bias) ro.bias = {*opt.bias};
        ro.masked_fill = opt.masked_fill;
        ro.scale_divisor = opt.scale_divisor;
        run.steps = attention_recipe_head(*q, *k, *v, ro).forward;
        run.options = opt;
    } catch (const shape_error& e) {
        rd.fail(&r, "run '" + name + "': " + e.what());
        return false;
    }
    if (auto why = trace::non_finite_step(run.steps)) {  // finite or refused, as `attn trace` does
        rd.fail(&r, "run '" + name + "': " + *why);
        return false;
    }
    if (rd.problems->size() != problems_before) return false;
    out.runs[name] = std::move(run);
    return true;
}

}  // namespace attn::lessons::detail

namespace attn::lessons {

recipe_options recipe_of_run(const attention_run& run) {
    recipe_options o;
    if (!xt::all(run.steps.attend)) o.mask = run.steps.attend;
    o.scale_divisor = run.steps.scale;
    return o;
}

}  // namespace attn::lessons
