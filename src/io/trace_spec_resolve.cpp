// io/trace_spec_resolve.cpp — checks that the inputs of a trace spec chain
// (d_k of Q = d_k of K, n of K = n of V, X · W, mask and bias shapes, batch sizes)
// and cuts them into per-batch matrices. Messages name both shapes by axis names:
//   "K [n_k=5, d_k=3] does not chain with Q [n_q=5, d_k=4]: d_k differs".
#include <algorithm>
#include <cmath>

#include "io/trace_spec.hpp"
#include "io/trace_spec_extras.hpp"

namespace attn::io {

namespace {

// Axis names of each input, for 2-D; a 3-D input adds "batch" in front.
std::vector<std::string> base_axes(const std::string& name) {
    if (name == "Q") return {"n_q", "d_k"};
    if (name == "K") return {"n_k", "d_k"};
    if (name == "V") return {"n_k", "d_v"};
    if (name == "X") return {"n", "d_model"};
    if (name == "X_src") return {"n_src", "d_model"};
    if (name == "W_Q" || name == "W_K") return {"d_model", "d_k"};
    if (name == "W_V") return {"d_model", "d_v"};
    if (name == "W_O") return {"d_v", "d_out"};
    return {"rows", "cols"};
}

struct named {
    std::string name;
    const nd_array* a;
    std::vector<std::string> axes;  // one per axis of a

    std::size_t dim(const std::string& axis) const {
        for (std::size_t i = 0; i < axes.size(); ++i)
            if (axes[i] == axis) return a->shape[i];
        return 0;
    }
    bool has(const std::string& axis) const { return std::find(axes.begin(), axes.end(), axis) != axes.end(); }
    std::string text() const {
        std::string s = name + " [";
        for (std::size_t i = 0; i < axes.size(); ++i) s += (i ? ", " : "") + axes[i] + "=" + std::to_string(a->shape[i]);
        return s + "]";
    }
};

named input(const trace_spec& s, const std::string& name, bool batchable) {
    const nd_array& a = s.inputs.at(name);
    auto axes = base_axes(name);
    if (a.rank() == 3 && batchable) axes.insert(axes.begin(), "batch");
    if (a.rank() != axes.size()) {
        std::string want = "[";
        for (std::size_t i = 0; i < base_axes(name).size(); ++i) want += (i ? ", " : "") + base_axes(name)[i];
        want += "]";
        throw input_error(a.where, name + " must be " + want + (batchable ? " or [batch, " + want.substr(1) : "") +
                                       ", found shape " + a.shape_text());
    }
    require_finite(a, name, axes);
    return {name, &a, axes};
}

// Grouped-query (kv_heads = G): K has G·d_head columns where Q has H·d_head.
void chain_groups(const named& q, const named& k, const trace_spec& s) {
    const std::size_t g = s.kv_heads.value_or(s.heads);
    if (s.heads % g != 0)
        throw input_error(s.kv_heads_where, "kv_heads = " + std::to_string(g) + " must divide heads = " +
                                                std::to_string(s.heads) + " (each key/value head serves heads/kv_heads query heads)");
    if (q.dim("d_k") % s.heads == 0 && k.dim("d_k") * s.heads == q.dim("d_k") * g) return;
    throw input_error(k.a->where, k.text() + " does not chain with " + q.text() + ": with heads = " +
                                      std::to_string(s.heads) + " and kv_heads = " + std::to_string(g) +
                                      ", K needs kv_heads·d_head = " + std::to_string(g) + "·(d_k/heads) columns");
}

// b's axis must equal a's axis (the message names b first, as the one that breaks the chain).
void chain(const named& a, const std::string& axis_a, const named& b, const std::string& axis_b, const std::string& label) {
    if (a.dim(axis_a) == b.dim(axis_b)) return;
    throw input_error(b.a->where, b.text() + " does not chain with " + a.text() + ": " + label + " differs");
}

void same_batch(std::size_t& batch, const named*& batch_src, const named& x) {
    if (!x.has("batch")) return;
    if (batch_src && batch != x.dim("batch"))
        throw input_error(x.a->where, x.text() + " does not chain with " + batch_src->text() + ": batch differs");
    batch = x.dim("batch");
    batch_src = &x;
}

matrix slice(const nd_array& a, std::size_t b) {
    const std::size_t r = a.shape[a.rank() - 2], c = a.shape[a.rank() - 1];
    const std::size_t off = a.rank() == 3 ? b * r * c : 0;
    matrix m({r, c});  // [rows, cols]
    std::copy(a.data.begin() + static_cast<std::ptrdiff_t>(off), a.data.begin() + static_cast<std::ptrdiff_t>(off + r * c), m.begin());
    return m;
}

std::vector<std::string> default_tokens(const char* prefix, std::size_t n) {
    std::vector<std::string> t(n);
    for (std::size_t i = 0; i < n; ++i) t[i] = prefix + std::to_string(i);
    return t;
}

}  // namespace

trace_inputs resolve_trace_inputs(const trace_spec& s) {
    trace_inputs in;
    in.kind = s.kind;
    in.heads = s.heads;
    in.scale = s.scale;
    const bool cross = s.kind == "cross";
    in.title = !s.title.empty() ? s.title
               : cross          ? "Cross-attention"
               : s.causal       ? "Causal self-attention"
                                : "Self-attention";
    const auto has = [&](const char* k) { return s.inputs.count(k) > 0; };
    const bool direct = has("Q") || has("K") || has("V");
    in.projected = has("X") || has("X_src") || has("W_Q") || has("W_K") || has("W_V");
    if (direct && in.projected)
        throw input_error(s.root, "give either Q, K, V or X with W_Q, W_K, W_V — not both");
    if (!direct && !in.projected)
        throw input_error(s.root, "no inputs: give Q, K, V (matrices) or X with W_Q, W_K, W_V");
    const auto need = [&](const char* k, const char* why) {
        if (!has(k)) throw input_error(s.root, std::string("missing input '") + k + "' (" + why + ")");
    };

    std::size_t batch = 1;
    const named* batch_src = nullptr;
    std::vector<named> held;  // keeps the named views alive for batch messages
    held.reserve(9);
    std::size_t d_k = 0, d_v = 0;
    if (direct) {
        need("Q", "queries [n_q, d_k]");
        need("K", "keys [n_k, d_k]");
        need("V", "values [n_k, d_v]");
        if (has("W_O")) throw input_error(s.inputs.at("W_O").where, "W_O needs the projected form (X with W_Q, W_K, W_V)");
        const named& q = held.emplace_back(input(s, "Q", true));
        const named& k = held.emplace_back(input(s, "K", true));
        const named& v = held.emplace_back(input(s, "V", true));
        if (s.kv_heads) chain_groups(q, k, s);
        else chain(q, "d_k", k, "d_k", "d_k");
        chain(k, "n_k", v, "n_k", "n_k");
        if (!cross && q.dim("n_q") != k.dim("n_k"))
            throw input_error(k.a->where, k.text() + " does not chain with " + q.text() +
                                              ": n_k differs from n_q, but " + s.kind +
                                              "-attention uses one sequence (use kind = \"cross\" for two)");
        for (const auto& x : held) same_batch(batch, batch_src, x);
        in.n_q = q.dim("n_q");
        in.n_k = k.dim("n_k");
        d_k = q.dim("d_k");
        d_v = v.dim("d_v");
        for (std::size_t b = 0; b < batch; ++b) {
            in.q.push_back(slice(*q.a, b));
            in.k.push_back(slice(*k.a, b));
            in.v.push_back(slice(*v.a, b));
        }
    } else {
        need("X", "the input sequence [n, d_model]");
        need("W_Q", "query projection [d_model, d_k]");
        need("W_K", "key projection [d_model, d_k]");
        need("W_V", "value projection [d_model, d_v]");
        if (cross) need("X_src", "the source sequence that keys and values come from, [n_src, d_model]");
        else if (has("X_src"))
            throw input_error(s.inputs.at("X_src").where, "X_src is only for kind = \"cross\"; " + s.kind +
                                                              "-attention takes keys and values from X");
        const named& x = held.emplace_back(input(s, "X", true));
        const named& src = cross ? held.emplace_back(input(s, "X_src", true)) : x;
        const named& wq = held.emplace_back(input(s, "W_Q", false));
        const named& wk = held.emplace_back(input(s, "W_K", false));
        const named& wv = held.emplace_back(input(s, "W_V", false));
        chain(x, "d_model", wq, "d_model", "d_model");
        chain(src, "d_model", wk, "d_model", "d_model");
        chain(src, "d_model", wv, "d_model", "d_model");
        if (s.kv_heads) chain_groups(wq, wk, s);
        else chain(wq, "d_k", wk, "d_k", "d_k");
        if (has("W_O")) {
            const named& wo = held.emplace_back(input(s, "W_O", false));
            chain(wv, "d_v", wo, "d_v", "d_v");
            in.w_o = slice(*wo.a, 0);
        }
        same_batch(batch, batch_src, x);
        if (cross) same_batch(batch, batch_src, src);
        in.n_q = x.dim("n");
        in.n_k = cross ? src.dim("n_src") : x.dim("n");
        d_k = wq.dim("d_k");
        d_v = wv.dim("d_v");
        in.w_q = slice(*wq.a, 0);
        in.w_k = slice(*wk.a, 0);
        in.w_v = slice(*wv.a, 0);
        for (std::size_t b = 0; b < batch; ++b) {
            in.x.push_back(slice(*x.a, b));
            if (cross) in.x_src.push_back(slice(*src.a, b));
        }
    }
    in.batch = batch;

    // Heads split the columns of Q/K (d_k) and V (d_v) into equal parts (V into
    // kv_heads parts when K/V heads are shared).
    const std::size_t v_heads = s.kv_heads.value_or(s.heads);
    if (d_k % s.heads != 0 || d_v % v_heads != 0)
        throw input_error(s.root, "heads = " + std::to_string(s.heads) + " must divide d_k = " + std::to_string(d_k) +
                                      " and " + (s.kv_heads ? "kv_heads" : "heads") + " = " + std::to_string(v_heads) +
                                      " must divide d_v = " + std::to_string(d_v) + " (each head takes d/heads columns)");
    in.d_head = d_k / s.heads;
    in.d_head_v = d_v / v_heads;

    // Tokens: default labels when none are given; otherwise one per position.
    const auto check_tokens = [&](const std::vector<std::string>& t, std::size_t n, const std::string& which, const std::string& axis) {
        if (!t.empty() && t.size() != n)
            throw input_error(s.tokens_where, which + " has " + std::to_string(t.size()) + " entries but the inputs have " +
                                                  axis + " = " + std::to_string(n));
    };
    if (cross) {
        check_tokens(s.query_tokens, in.n_q, "query_tokens", "n_q");
        check_tokens(s.key_tokens, in.n_k, "key_tokens", "n_k");
        in.query_tokens = s.query_tokens.empty() ? default_tokens("q", in.n_q) : s.query_tokens;
        in.key_tokens = s.key_tokens.empty() ? default_tokens("k", in.n_k) : s.key_tokens;
    } else {
        check_tokens(s.query_tokens, in.n_q, "tokens", "n");
        in.query_tokens = s.query_tokens.empty() ? default_tokens("t", in.n_q) : s.query_tokens;
        in.key_tokens = in.query_tokens;
    }

    // Masks, all in attend polarity: causal AND the given mask AND padding.
    const std::string mask_want = "[n_q=" + std::to_string(in.n_q) + ", n_k=" + std::to_string(in.n_k) + "]";
    in.attend.assign(batch, bool_matrix(xt::ones<bool>({in.n_q, in.n_k})));
    if (s.causal) {
        in.has_mask = true;
        for (auto& m : in.attend)
            for (std::size_t i = 0; i < in.n_q; ++i)
                for (std::size_t j = 0; j < in.n_k; ++j) m(i, j) = m(i, j) && j <= i;
    }
    if (s.attend) {
        const nd_array& a = *s.attend;
        const bool ok2 = a.rank() == 2 && a.shape[0] == in.n_q && a.shape[1] == in.n_k;
        const bool ok3 = a.rank() == 3 && a.shape[0] == batch && a.shape[1] == in.n_q && a.shape[2] == in.n_k;
        if (!ok2 && !ok3)
            throw input_error(a.where, "mask " + a.shape_text() + " does not chain with the scores " + mask_want +
                                           (batch > 1 ? " (or [batch=" + std::to_string(batch) + ", n_q, n_k])" : "") +
                                           ": expected one entry per (query, key)");
        in.has_mask = true;
        for (std::size_t b = 0; b < batch; ++b) {
            const matrix m = slice(a, ok3 ? b : 0);
            for (std::size_t i = 0; i < in.n_q; ++i)
                for (std::size_t j = 0; j < in.n_k; ++j) in.attend[b](i, j) = in.attend[b](i, j) && m(i, j) != 0.0;
        }
    }
    if (s.key_is_padding) {
        const nd_array& p = *s.key_is_padding;
        const bool ok1 = p.rank() == 1 && p.shape[0] == in.n_k;
        const bool ok2 = p.rank() == 2 && p.shape[0] == batch && p.shape[1] == in.n_k;
        if (!ok1 && !ok2)
            throw input_error(p.where, "key_is_padding " + p.shape_text() + " does not chain with the keys: expected [n_k=" +
                                           std::to_string(in.n_k) + "] or [batch=" + std::to_string(batch) +
                                           ", n_k=" + std::to_string(in.n_k) + "]");
        in.has_mask = true;
        for (std::size_t b = 0; b < batch; ++b)
            for (std::size_t j = 0; j < in.n_k; ++j)
                if (p.data[(ok2 ? b * in.n_k : 0) + j] != 0.0)
                    for (std::size_t i = 0; i < in.n_q; ++i) in.attend[b](i, j) = false;
    }
    if (s.bias) {
        const nd_array& a = *s.bias;
        const bool ok2 = a.rank() == 2 && a.shape[0] == in.n_q && a.shape[1] == in.n_k;
        const bool ok3 = a.rank() == 3 && a.shape[0] == s.heads && a.shape[1] == in.n_q && a.shape[2] == in.n_k;
        if (!ok2 && !ok3)
            throw input_error(a.where, "bias " + a.shape_text() + " does not chain with the scores " + mask_want +
                                           " (or [heads=" + std::to_string(s.heads) + ", n_q, n_k] for one bias per head)");
        require_finite(a, "bias", ok3 ? std::vector<std::string>{"head", "n_q", "n_k"} : std::vector<std::string>{"n_q", "n_k"});
        for (std::size_t h = 0; h < s.heads; ++h) {
            // slice() reads axis 0 as the batch; for a per-head bias it is the head.
            in.bias.push_back(slice(a, ok3 ? h : 0));
        }
    }
    resolve_trace_extras(s, in);
    return in;
}

}  // namespace attn::io
