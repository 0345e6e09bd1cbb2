// lessons/loader_derive_more.cpp — the [derived.X] ops built on the core's pieces:
// random vectors from attn's PRNG (lesson 02), embedding lookup and positions
// (lesson 08), layer norm, ReLU and the FFN (lessons 09–10), the ALiBi-style
// distance bias (lesson 08): rows of the derive_op registry (loader_internal.hpp).
// Each keeps what a lesson wants to show next to the result (the FFN's hidden
// layer, the layer norm's statistics) as "X.piece".
#include <algorithm>
#include <cmath>

#include "core/alibi.hpp"
#include "core/ffn.hpp"
#include "core/layer_norm.hpp"
#include "core/positional.hpp"
#include "core/prng.hpp"
#include "core/shape_error.hpp"
#include "io/size_budget.hpp"
#include "lessons/lesson_parts.hpp"
#include "lessons/loader_internal.hpp"

namespace attn::lessons::detail {

std::optional<std::size_t> loader::count(const toml::table& d, const std::string& key) {
    const toml::node* n = d.get(key);
    if (!n) {
        rd.fail(&d, "missing key '" + key + "' (expected a positive whole number)");
        return std::nullopt;
    }
    if (!n->is_integer() || *n->value<int64_t>() <= 0 || *n->value<int64_t>() > 100000) {
        rd.fail(n, "'" + key + "' must be a positive whole number (at most 100000), found " + toml_reader::type_name(n));
        return std::nullopt;
    }
    return static_cast<std::size_t>(*n->value<int64_t>());
}

namespace {

std::optional<matrix> op_scale(loader& ld, const toml::table& d, const std::string&) {
    const matrix* of = ld.matrix_ref(d, "of", true);
    auto by = ld.rd.number(d, "by", true);
    if (!of || !by) return std::nullopt;
    return matrix(*of * *by);
}

std::optional<matrix> op_random_normal(loader& ld, const toml::table& d, const std::string&) {
    auto rows = ld.count(d, "rows");
    auto cols = ld.count(d, "cols");
    const toml::node* s = d.get("seed");
    if (!s || !s->is_integer() || *s->value<int64_t>() < 0) {
        ld.rd.fail(s ? s : &d, "'seed' must be a whole number ≥ 0 (the PRNG's seed)");
        return std::nullopt;
    }
    if (!rows || !cols) return std::nullopt;
    if (auto why = io::over_budget(*rows * *cols, "random_normal " + std::to_string(*rows) + " × " +
                                                                 std::to_string(*cols), "(a lesson's matrices are small)")) {
        ld.rd.fail(&d, *why);  // never std::bad_alloc: the budget of the run (io/size_budget.hpp)
        return std::nullopt;
    }
    prng g(static_cast<std::uint64_t>(*s->value<int64_t>()));
    matrix m({*rows, *cols});  // [rows, cols], drawn row by row
    for (auto& x : m) x = g.normal();
    return m;
}

std::optional<matrix> op_lookup(loader& ld, const toml::table& d, const std::string&) {
    const matrix* table = ld.matrix_ref(d, "table", true);
    auto vocab_name = ld.rd.string(d, "vocab", true);
    auto tokens_name = ld.rd.string(d, "tokens", true);
    if (!table || !vocab_name || !tokens_name) return std::nullopt;
    auto v = ld.out.tokens.find(*vocab_name);
    auto t = ld.out.tokens.find(*tokens_name);
    if (v == ld.out.tokens.end()) ld.rd.fail(d.get("vocab"), "'vocab' names token list '" + *vocab_name + "', which is not in [tokens]");
    if (t == ld.out.tokens.end()) ld.rd.fail(d.get("tokens"), "'tokens' names token list '" + *tokens_name + "', which is not in [tokens]");
    if (v == ld.out.tokens.end() || t == ld.out.tokens.end()) return std::nullopt;
    if (v->second.size() != table->shape(0)) {
        ld.rd.fail(d.get("vocab"), "the vocabulary has " + std::to_string(v->second.size()) + " tokens but 'table' has " +
                                    std::to_string(table->shape(0)) + " rows");
        return std::nullopt;
    }
    matrix m({t->second.size(), table->shape(1)});  // [n, d]
    for (std::size_t i = 0; i < t->second.size(); ++i) {
        auto at = std::find(v->second.begin(), v->second.end(), t->second[i]);
        if (at == v->second.end()) {
            ld.rd.fail(d.get("tokens"), "token '" + t->second[i] + "' is not in the vocabulary '" + *vocab_name + "'");
            return std::nullopt;
        }
        const auto r = static_cast<std::size_t>(at - v->second.begin());
        for (std::size_t j = 0; j < table->shape(1); ++j) m(i, j) = (*table)(r, j);
    }
    return m;
}

std::optional<matrix> op_layer_norm(loader& ld, const toml::table& d, const std::string& name) {
    const matrix* of = ld.matrix_ref(d, "of", true);
    if (!of) return std::nullopt;
    layer_norm_params p;
    p.eps = ld.rd.number(d, "eps", false).value_or(0.0);  // seed 000's formula has no ε
    if (p.eps < 0) ld.rd.fail(d.get("eps"), "'eps' must be ≥ 0");
    layer_norm_steps s = layer_norm(*of, p);
    if (!ld.out.parts) ld.out.parts = std::make_shared<lesson_parts>();
    matrix stats({of->shape(0), 3});  // [n, 3]: mean, variance, divisor per token
    for (std::size_t i = 0; i < of->shape(0); ++i) {
        stats(i, 0) = s.mean(i);
        stats(i, 1) = s.variance(i);
        stats(i, 2) = s.stddev(i);
    }
    ld.out.matrices[name + ".stats"] = stats;
    matrix out_m = s.output;
    ld.out.parts->norms[name] = std::move(s);
    return out_m;
}

std::optional<matrix> op_relu(loader& ld, const toml::table& d, const std::string&) {
    const matrix* of = ld.matrix_ref(d, "of", true);
    if (!of) return std::nullopt;
    return matrix(xt::maximum(*of, 0.0));
}

std::optional<matrix> op_ffn(loader& ld, const toml::table& d, const std::string& name) {
    const matrix* x = ld.matrix_ref(d, "x", true);
    const matrix* w1 = ld.matrix_ref(d, "w1", true);
    const matrix* w2 = ld.matrix_ref(d, "w2", true);
    if (!x || !w1 || !w2) return std::nullopt;
    ffn_weights w{*w1, {}, *w2, {}, activation::relu};
    for (const char* key : {"b1", "b2"})
        if (d.contains(key)) {
            const matrix* b = ld.matrix_ref(d, key, true);
            if (!b) return std::nullopt;
            (std::string(key) == "b1" ? w.b1 : w.b2) = xt::flatten(*b);
        }
    const std::string act = ld.rd.string(d, "activation", false).value_or("relu");
    if (act == "gelu") w.act = activation::gelu_tanh;
    else if (act != "relu") ld.rd.fail(d.get("activation"), "'activation' must be relu or gelu, found '" + act + "'");
    try {
        ffn_steps s = feed_forward(*x, w);
        ld.out.matrices[name + ".hidden_pre"] = s.hidden_pre;
        ld.out.matrices[name + ".hidden"] = s.hidden;
        return s.output;
    } catch (const shape_error& e) {
        ld.rd.fail(&d, "[derived." + name + "]: " + e.what());
        return std::nullopt;
    }
}

std::optional<matrix> op_distance_bias(loader& ld, const toml::table& d, const std::string&) {
    auto rows = ld.count(d, "rows");
    auto cols = ld.count(d, "cols");
    const double slope = ld.rd.number(d, "slope", false).value_or(1.0);
    if (!rows || !cols) return std::nullopt;
    return linear_distance_bias(*rows, *cols, slope);
}

std::optional<matrix> op_sinusoidal(loader& ld, const toml::table& d, const std::string&) {
    auto rows = ld.count(d, "rows");
    auto cols = ld.count(d, "cols");
    if (!rows || !cols) return std::nullopt;
    return sinusoidal_positions(*rows, *cols);
}

}  // namespace

std::vector<derive_op> core_derive_ops() {
    return {
        {"scale", {"op", "of", "by"}, "every entry of 'of' times the number 'by'", op_scale},
        {"random_normal", {"op", "rows", "cols", "seed"},
         "rows × cols standard normal numbers from attn's own PRNG with the given seed", op_random_normal},
        {"lookup", {"op", "table", "vocab", "tokens"},
         "embedding lookup: for each token of 'tokens', the row of 'table' whose 'vocab' token it is", op_lookup},
        {"layer_norm", {"op", "of", "eps"}, "layer norm of each row (statistics per token); eps defaults to 0",
         op_layer_norm},
        {"relu", {"op", "of"}, "max(0, x) entry by entry", op_relu},
        {"ffn", {"op", "x", "w1", "b1", "w2", "b2", "activation"},
         "the position-wise feed-forward network act(x·W1 + b1)·W2 + b2 (also X.hidden_pre, X.hidden)", op_ffn},
        {"distance_bias", {"op", "rows", "cols", "slope"}, "the ALiBi-style bias −slope·|i − j| of seed 000 eq. 13",
         op_distance_bias},
        {"sinusoidal", {"op", "rows", "cols"}, "the sinusoidal position table of the original Transformer",
         op_sinusoidal},
    };
}
}  // namespace attn::lessons::detail
