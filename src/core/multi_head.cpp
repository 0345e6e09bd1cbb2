// core/multi_head.cpp — multi-head attention on top of scaled_dot_product_attention.
#include "core/multi_head.hpp"

#include <string>

#include <xtensor/xview.hpp>

#include "core/shape_error.hpp"

namespace attn {

namespace {

std::string dims(const char* name, std::size_t r, const char* rows, std::size_t c, const char* cols) {
    return std::string(name) + " [" + rows + "=" + std::to_string(r) + ", " + cols + "=" + std::to_string(c) + "]";
}
std::string dims(const char* name, const matrix& m, const char* rows, const char* cols) {
    return dims(name, m.shape(0), rows, m.shape(1), cols);
}

void check_shapes(const matrix& x_q, const matrix& x_kv, const multi_head_weights& w) {
    const std::size_t h = w.heads;
    const std::string all = "(" + dims("X_q", x_q, "n_q", "d_model") + ", " + dims("X_kv", x_kv, "n_k", "d_model") +
                            ", " + dims("W_Q", w.w_q, "d_model", "H·d_k") + ", " + dims("W_K", w.w_k, "d_model", "H·d_k") +
                            ", " + dims("W_V", w.w_v, "d_model", "H·d_v") + ", " + dims("W_O", w.w_o, "H·d_v", "d_out") +
                            ", H=" + std::to_string(h) + ")";
    auto fail = [&](const std::string& what) { throw shape_error(what + " " + all); };
    if (h == 0) fail("H is 0: multi-head attention needs at least one head");
    if (x_kv.shape(1) != x_q.shape(1))
        fail("X_kv has d_model = " + std::to_string(x_kv.shape(1)) + " but X_q has d_model = " +
             std::to_string(x_q.shape(1)));
    if (w.w_q.shape(0) != x_q.shape(1))
        fail("W_Q has d_model = " + std::to_string(w.w_q.shape(0)) + " rows but X_q has d_model = " +
             std::to_string(x_q.shape(1)));
    if (w.w_k.shape(0) != x_kv.shape(1))
        fail("W_K has d_model = " + std::to_string(w.w_k.shape(0)) + " rows but X_kv has d_model = " +
             std::to_string(x_kv.shape(1)));
    if (w.w_v.shape(0) != x_kv.shape(1))
        fail("W_V has d_model = " + std::to_string(w.w_v.shape(0)) + " rows but X_kv has d_model = " +
             std::to_string(x_kv.shape(1)));
    if (w.w_k.shape(1) != w.w_q.shape(1))
        fail("W_K has H·d_k = " + std::to_string(w.w_k.shape(1)) + " columns but W_Q has H·d_k = " +
             std::to_string(w.w_q.shape(1)));
    if (w.w_q.shape(1) % h != 0 || w.w_q.shape(1) == 0)
        fail("W_Q has " + std::to_string(w.w_q.shape(1)) + " columns, not a positive multiple of H = " + std::to_string(h));
    if (w.w_v.shape(1) % h != 0 || w.w_v.shape(1) == 0)
        fail("W_V has " + std::to_string(w.w_v.shape(1)) + " columns, not a positive multiple of H = " + std::to_string(h));
    if (w.w_o.shape(0) != w.w_v.shape(1))
        fail("W_O has H·d_v = " + std::to_string(w.w_o.shape(0)) + " rows but W_V has H·d_v = " +
             std::to_string(w.w_v.shape(1)));
}

matrix head_slice(const tensor3& t, std::size_t h) {
    return xt::view(t, h, xt::all(), xt::all());  // [n, d]
}

}  // namespace

tensor3 split_heads(const matrix& m, std::size_t heads) {
    if (heads == 0 || m.shape(1) % heads != 0)
        throw shape_error("cannot split " + std::to_string(m.shape(1)) + " columns into H = " + std::to_string(heads) +
                          " heads of equal width");
    const std::size_t n = m.shape(0), d = m.shape(1) / heads;
    // reshape (n, H·d) → (n, H, d): element (i, h·d + c) becomes (i, h, c);
    // transpose (n, H, d) → (H, n, d): (i, h, c) becomes (h, i, c).
    tensor3 t({heads, n, d});  // [H, n, d]
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < d; ++c) t(h, i, c) = m(i, h * d + c);
    return t;
}

matrix merge_heads(const tensor3& t) {
    const std::size_t heads = t.shape(0), n = t.shape(1), d = t.shape(2);
    matrix m({n, heads * d});  // [n, H·d]
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < d; ++c) m(i, h * d + c) = t(h, i, c);
    return m;
}

matrix head_columns(const matrix& w, std::size_t head, std::size_t heads) {
    if (heads == 0 || head >= heads || w.shape(1) % heads != 0)
        throw shape_error("head_columns: head " + std::to_string(head) + " of H = " + std::to_string(heads) + " in " +
                          std::to_string(w.shape(1)) + " columns");
    const std::size_t d = w.shape(1) / heads;
    return xt::view(w, xt::all(), xt::range(head * d, (head + 1) * d));  // [d_model, d]
}

matrix head_rows(const matrix& w, std::size_t head, std::size_t heads) {
    if (heads == 0 || head >= heads || w.shape(0) % heads != 0)
        throw shape_error("head_rows: head " + std::to_string(head) + " of H = " + std::to_string(heads) + " in " +
                          std::to_string(w.shape(0)) + " rows");
    const std::size_t d = w.shape(0) / heads;
    return xt::view(w, xt::range(head * d, (head + 1) * d), xt::all());  // [d, d_out]
}

multi_head_weights weights_from_heads(const std::vector<matrix>& w_q, const std::vector<matrix>& w_k,
                                      const std::vector<matrix>& w_v, const matrix& w_o) {
    const std::size_t h = w_q.size();
    if (h == 0 || w_k.size() != h || w_v.size() != h)
        throw shape_error("weights_from_heads: need the same number (≥ 1) of W_Q, W_K and W_V matrices, got " +
                          std::to_string(w_q.size()) + ", " + std::to_string(w_k.size()) + ", " +
                          std::to_string(w_v.size()));
    auto stack = [&](const std::vector<matrix>& parts, const char* name) {
        const std::size_t rows = parts[0].shape(0), cols = parts[0].shape(1);
        matrix out({rows, cols * h});  // [d_model, H·d]
        for (std::size_t i = 0; i < h; ++i) {
            if (parts[i].shape(0) != rows || parts[i].shape(1) != cols)
                throw shape_error(std::string("weights_from_heads: ") + name + " of head " + std::to_string(i + 1) + " is " +
                                  dims(name, parts[i], "d_model", "d") + " but head 1's is " +
                                  dims(name, parts[0], "d_model", "d"));
            xt::view(out, xt::all(), xt::range(i * cols, (i + 1) * cols)) = parts[i];
        }
        return out;
    };
    return {stack(w_q, "W_Q"), stack(w_k, "W_K"), stack(w_v, "W_V"), w_o, h};
}

tensor3 multi_head_steps::weights() const {
    tensor3 w({heads, n_q(), n_k()});  // [H, n_q, n_k]
    for (std::size_t h = 0; h < heads; ++h) xt::view(w, h, xt::all(), xt::all()) = head[h].weights;
    return w;
}

multi_head_steps multi_head_from_projections(const matrix& q, const matrix& k, const matrix& v, const matrix& w_o,
                                             std::size_t heads, const std::vector<attention_options>& per_head) {
    const std::string all = "(" + dims("Q", q, "n_q", "H·d_k") + ", " + dims("K", k, "n_k", "H·d_k") + ", " +
                            dims("V", v, "n_k", "H·d_v") + ", " + dims("W_O", w_o, "H·d_v", "d_out") +
                            ", H=" + std::to_string(heads) + ")";
    if (heads == 0) throw shape_error("H is 0: multi-head attention needs at least one head " + all);
    if (q.shape(1) % heads != 0 || v.shape(1) % heads != 0 || q.shape(1) == 0 || v.shape(1) == 0)
        throw shape_error("Q and V widths must be positive multiples of H " + all);
    if (w_o.shape(0) != v.shape(1))
        throw shape_error("W_O has H·d_v = " + std::to_string(w_o.shape(0)) + " rows but V has H·d_v = " +
                          std::to_string(v.shape(1)) + " " + all);
    if (per_head.size() != 1 && per_head.size() != heads)
        throw shape_error(std::to_string(per_head.size()) + " attention options for H = " + std::to_string(heads) +
                          " heads: give one for all or one per head");
    multi_head_steps s;
    s.heads = heads;
    s.d_k = q.shape(1) / heads;
    s.d_v = v.shape(1) / heads;
    s.q = q;
    s.k = k;
    s.v = v;

    // Stage 2: split into heads, (n, H·d) → (n, H, d) → (H, n, d).
    s.q_heads = split_heads(s.q, heads);  // [H, n_q, d_k]
    s.k_heads = split_heads(s.k, heads);  // [H, n_k, d_k]
    s.v_heads = split_heads(s.v, heads);  // [H, n_k, d_v]

    // Stage 3: every head attends on its own (scaled_dot_product_attention checks the rest).
    tensor3 z({heads, q.shape(0), s.d_v});  // [H, n_q, d_v]
    for (std::size_t h = 0; h < heads; ++h) {
        const attention_options& o = per_head.size() == 1 ? per_head[0] : per_head[h];
        s.head.push_back(scaled_dot_product_attention(head_slice(s.q_heads, h), head_slice(s.k_heads, h),
                                                      head_slice(s.v_heads, h), o));
        xt::view(z, h, xt::all(), xt::all()) = s.head.back().output;
    }

    // Stage 4: concatenate the heads back to (n_q, H·d_v) and mix them with W_O.
    s.concat = merge_heads(z);          // [n_q, H·d_v]
    s.output = matmul(s.concat, w_o);  // [n_q, d_out]

    // Stage 5: each head's own share of the output; concat·W_O = Σ_h Z_h·W_O[rows of h].
    s.head_results = tensor3({heads, q.shape(0), w_o.shape(1)});  // [H, n_q, d_out]
    for (std::size_t h = 0; h < heads; ++h)
        xt::view(s.head_results, h, xt::all(), xt::all()) = matmul(s.head[h].output, head_rows(w_o, h, heads));
    return s;
}

multi_head_steps multi_head_attention(const matrix& x_q, const matrix& x_kv, const multi_head_weights& w,
                                      const std::vector<attention_options>& per_head) {
    check_shapes(x_q, x_kv, w);
    // Stage 1: one projection for all heads at once (the "no more expensive than one head" form).
    const matrix q = matmul(x_q, w.w_q);   // [n_q, H·d_k]
    const matrix k = matmul(x_kv, w.w_k);  // [n_k, H·d_k]
    const matrix v = matmul(x_kv, w.w_v);  // [n_k, H·d_v]
    multi_head_steps s = multi_head_from_projections(q, k, v, w.w_o, w.heads, per_head);
    s.x_q = x_q;
    s.x_kv = x_kv;
    return s;
}

multi_head_steps multi_head_attention(const matrix& x_q, const matrix& x_kv, const multi_head_weights& w,
                                      const attention_options& options) {
    return multi_head_attention(x_q, x_kv, w, std::vector<attention_options>{options});
}

batched_multi_head_steps multi_head_attention_batched(const tensor3& x_q, const tensor3& x_kv,
                                                      const multi_head_weights& w,
                                                      const std::vector<attention_options>& options) {
    const std::size_t b = x_q.shape(0);
    if (x_kv.shape(0) != b)
        throw shape_error("X_kv has B = " + std::to_string(x_kv.shape(0)) + " items but X_q has B = " + std::to_string(b));
    if (options.size() > 1 && options.size() != b)
        throw shape_error(std::to_string(options.size()) + " attention options for B = " + std::to_string(b) +
                          " items: give one for all or one per item");
    batched_multi_head_steps out;
    const attention_options none;
    for (std::size_t i = 0; i < b; ++i) {
        const matrix xq = xt::view(x_q, i, xt::all(), xt::all());   // [n_q, d_model]
        const matrix xkv = xt::view(x_kv, i, xt::all(), xt::all());  // [n_k, d_model]
        const attention_options& o = options.empty() ? none : options.size() == 1 ? options[0] : options[i];
        out.items.push_back(multi_head_attention(xq, xkv, w, o));
    }
    out.output = tensor3({b, x_q.shape(1), w.w_o.shape(1)});  // [B, n_q, d_out]
    for (std::size_t i = 0; i < b; ++i) xt::view(out.output, i, xt::all(), xt::all()) = out.items[i].output;
    return out;
}

}  // namespace attn
