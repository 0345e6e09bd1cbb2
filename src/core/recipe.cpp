// core/recipe.cpp — see recipe.hpp: the reference path of the recipe, and the steps
// both paths share (the heads' columns, the rotation, the options' extra stages).
#include "core/recipe.hpp"

#include "core/recipe_internal.hpp"

#include <string>

#include <xtensor/xview.hpp>

#include "core/grouped_query.hpp"
#include "core/shape_error.hpp"

namespace attn {

namespace detail {

namespace {

// Columns [h·d, (h+1)·d) of m, materialised.  // [rows, d]
matrix columns_of(const matrix& m, std::size_t h, std::size_t d) {
    return xt::view(m, xt::all(), xt::range(h * d, (h + 1) * d));
}

std::size_t kv_heads_of(const recipe_options& o) { return o.kv_heads ? o.kv_heads : o.heads; }

}  // namespace

head_widths check_heads(const matrix& q, const matrix& k, const matrix& v, const recipe_options& o) {
    const std::size_t heads = o.heads, kv = kv_heads_of(o);
    if (heads == 1 && kv == 1) return {q.shape(1), v.shape(1), false};
    kv_group_of(0, heads, kv);  // checks that G divides H
    if (q.shape(1) % heads != 0)
        throw shape_error("Q has " + std::to_string(q.shape(1)) + " columns, not a multiple of H = " + std::to_string(heads));
    const std::size_t d_k = q.shape(1) / heads;
    if (k.shape(1) != kv * d_k)
        throw shape_error("K has " + std::to_string(k.shape(1)) + " columns, expected G·d_k = " + std::to_string(kv) +
                          "·" + std::to_string(d_k));
    if (v.shape(1) % kv != 0)
        throw shape_error("V has " + std::to_string(v.shape(1)) + " columns, not a multiple of G = " + std::to_string(kv));
    return {d_k, v.shape(1) / kv, true};
}

head_qkv head_inputs(const matrix& q, const matrix& k, const matrix& v, const recipe_options& o, const head_widths& w,
                     std::size_t h, recipe_extras_head& ex) {
    ex.group = w.split ? kv_group_of(h, o.heads, kv_heads_of(o)) : 0;
    head_qkv hi = w.split ? head_qkv{columns_of(q, h, w.d_k), columns_of(k, ex.group, w.d_k), columns_of(v, ex.group, w.d_v)}
                          : head_qkv{q, k, v};
    if (o.rope) {
        ex.rope_q = rotary_embed(hi.q, o.rope->base, o.rope->offset, o.rope->pairing);
        ex.rope_k = rotary_embed(hi.k, o.rope->base, o.rope->offset, o.rope->pairing);
        hi.q = ex.rope_q->rotated;
        hi.k = ex.rope_k->rotated;
    }
    return hi;
}

attention_options head_scores(const recipe_options& o, std::size_t h) {
    attention_options a;
    a.mask = o.mask;
    if (!o.bias.empty()) a.bias = o.bias.size() == 1 ? o.bias[0] : o.bias.at(h);
    a.masked_fill = o.masked_fill;
    a.scale_divisor = o.scale_divisor;
    return a;
}

void head_options_stages(const head_qkv& hi, const attention_steps& forward, const recipe_options& o,
                         const attention_options& a, const head_widths& w, std::size_t h, recipe_extras_head& ex) {
    if (o.tile) {
        tiled_options t;
        t.tile = *o.tile;
        t.mask = a.mask;
        t.bias = a.bias;
        t.scale_divisor = a.scale_divisor;
        t.skip_rescale = o.skip_rescale;
        ex.tiled = tiled_attention(hi.q, hi.k, hi.v, t);
    }
    if (o.grad_output)
        ex.grads = attention_backward(forward, w.split ? columns_of(*o.grad_output, h, w.d_v) : *o.grad_output);
}

}  // namespace detail

projected_qkv project_qkv(const matrix& x, const matrix& x_src, const matrix& w_q, const matrix& w_k,
                          const matrix& w_v) {
    return {matmul(x, w_q), matmul(x_src, w_k), matmul(x_src, w_v)};
}

matrix weights_of_scores(const matrix& scores, const std::optional<bool_matrix>& mask, bool softmax) {
    matrix m = scores;  // [n_q, n_k]
    const bool fits = mask && mask->shape(0) == m.shape(0) && mask->shape(1) == m.shape(1);
    const double blocked = softmax ? -std::numeric_limits<double>::infinity() : 0.0;
    if (fits)
        for (std::size_t i = 0; i < m.shape(0); ++i)
            for (std::size_t j = 0; j < m.shape(1); ++j)
                if (!(*mask)(i, j)) m(i, j) = blocked;
    return softmax ? softmax_rows(m) : m;  // fully blocked rows → zeros
}

namespace {

recipe_head run_head(const matrix& q, const matrix& k, const matrix& v, const recipe_options& o,
                     const detail::head_widths& w, std::size_t h) {
    recipe_head r;
    const detail::head_qkv hi = detail::head_inputs(q, k, v, o, w, h, r);
    const attention_options a = detail::head_scores(o, h);
    r.forward = scaled_dot_product_attention(hi.q, hi.k, hi.v, a);
    if (!o.softmax) {  // (Q Kᵀ / scale) V: the masked scores are the weights
        r.forward.weights = weights_of_scores(r.forward.scores_masked, a.mask, false);
        r.forward.output = matmul(r.forward.weights, hi.v);  // [n_q, d_v]
    }
    detail::head_options_stages(hi, r.forward, o, a, w, h, r);
    if (o.w_o) {
        const matrix w_o_h = xt::view(*o.w_o, xt::range(h * w.d_v, (h + 1) * w.d_v), xt::all());  // [d_v, d_model]
        r.result = matmul(r.forward.output, w_o_h);                                                 // [n_q, d_model]
    }
    return r;
}

}  // namespace

recipe_head attention_recipe_head(const matrix& q, const matrix& k, const matrix& v, const recipe_options& o,
                                  std::size_t h) {
    return run_head(q, k, v, o, detail::check_heads(q, k, v, o), h);
}

recipe_steps attention_recipe(const matrix& q, const matrix& k, const matrix& v, const recipe_options& o) {
    const detail::head_widths w = detail::check_heads(q, k, v, o);
    recipe_steps s;
    s.concat = xt::zeros<double>({q.shape(0), o.heads * w.d_v});  // [n_q, H·d_v]
    for (std::size_t h = 0; h < o.heads; ++h) {
        s.heads.push_back(run_head(q, k, v, o, w, h));
        xt::view(s.concat, xt::all(), xt::range(h * w.d_v, (h + 1) * w.d_v)) = s.heads.back().forward.output;
        if (o.w_o) {
            if (h == 0) s.attn_out = s.heads.back().result;
            else s.attn_out += s.heads.back().result;
        }
    }
    return s;
}

}  // namespace attn
