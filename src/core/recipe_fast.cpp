// core/recipe_fast.cpp — see recipe.hpp: the recipe's fast path. Per head: its
// columns and rotation (shared with the reference path, in double), then the fast
// forward into one reused workspace, whose kept matrices move into the head's data,
// z_h·W_O, and the options' stages on the forward as kept.
#include <cblas.h>

#include <xtensor/xview.hpp>

#include "core/recipe.hpp"
#include "core/recipe_internal.hpp"

namespace attn {

namespace {

// C [m, n] = A [m, kk] · B [kk, n], row-major.
void gemm(std::size_t m, std::size_t n, std::size_t kk, const double* a, const double* b, double* c) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(kk),
                1.0, a, static_cast<int>(kk), b, static_cast<int>(n), 0.0, c, static_cast<int>(n));
}
void gemm(std::size_t m, std::size_t n, std::size_t kk, const float* a, const float* b, float* c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(kk),
                1.0f, a, static_cast<int>(kk), b, static_cast<int>(n), 0.0f, c, static_cast<int>(n));
}

// The fast forward of one head into ws, its kept matrices moved into hd.
template <class T>
void forward_head(fast_recipe_head<T>& hd, const recipe_options& o, const fast_recipe_options& f, fast_steps<T>& ws) {
    fast_options<T> fo;
    fo.keep = f.keep;
    fo.query = f.query;
    fo.mask = o.mask ? &*o.mask : nullptr;
    fo.bias = hd.bias.size() ? &hd.bias : nullptr;
    fo.masked_fill = static_cast<T>(o.masked_fill);
    fo.scale_divisor = o.scale_divisor;
    fo.threads = f.threads;
    fast_attention(hd.q, hd.k, hd.v, ws, fo);
    hd.scale = ws.scale;
}

template <class T>
void keep_forward(fast_recipe_head<T>& hd, fast_steps<T>& ws) {
    hd.scores_raw = std::move(ws.scores_raw);
    hd.weights = std::move(ws.weights);
    hd.z = std::move(ws.output);
    // A moved-from xtensor may keep its shape without its data: reset, so the next
    // call's resize allocates.
    ws.scores_raw = fast_matrix<T>();
    ws.weights = fast_matrix<T>();
    ws.output = fast_matrix<T>();
    hd.fully_masked = ws.row_fully_masked;
}

}  // namespace

template <class T>
void fast_recipe(const matrix& q, const matrix& k, const matrix& v, const recipe_options& o,
                 const fast_recipe_options& f, fast_steps<T>& ws, std::vector<fast_recipe_head<T>>& heads,
                 std::vector<recipe_extras_head>& extras, fast_matrix<T>& attn_out) {
    const detail::head_widths w = detail::check_heads(q, k, v, o);
    const std::size_t d_model = o.w_o ? o.w_o->shape(1) : 0;
    for (std::size_t h = 0; h < o.heads; ++h) {
        recipe_extras_head ex;
        const detail::head_qkv hi = detail::head_inputs(q, k, v, o, w, h, ex);
        const attention_options a = detail::head_scores(o, h);
        fast_recipe_head<T> hd;
        hd.q = xt::cast<T>(hi.q);
        hd.k = xt::cast<T>(hi.k);
        hd.v = xt::cast<T>(hi.v);
        if (a.bias) hd.bias = xt::cast<T>(*a.bias);
        forward_head(hd, o, f, ws);
        if (detail::needs_forward_steps(o))  // on the forward as kept, in double
            detail::head_options_stages(hi, to_attention_steps(ws, hd.q, hd.k, hd.v), o, a, w, h, ex);
        keep_forward(hd, ws);
        if (o.w_o) {
            const fast_matrix<T> w_o_h =
                xt::cast<T>(xt::view(*o.w_o, xt::range(h * w.d_v, (h + 1) * w.d_v), xt::all()));  // [d_v, d_model]
            hd.result = fast_matrix<T>({hd.z.shape(0), d_model});
            gemm(hd.z.shape(0), d_model, w.d_v, hd.z.data(), w_o_h.data(), hd.result.data());  // z_h · W_O[h rows]
            if (h == 0) attn_out = hd.result;
            else attn_out += hd.result;
        }
        heads.push_back(std::move(hd));
        extras.push_back(std::move(ex));
    }
}

template void fast_recipe<double>(const matrix&, const matrix&, const matrix&, const recipe_options&,
                                  const fast_recipe_options&, fast_steps<double>&, std::vector<fast_recipe_head<double>>&,
                                  std::vector<recipe_extras_head>&, fast_matrix<double>&);
template void fast_recipe<float>(const matrix&, const matrix&, const matrix&, const recipe_options&,
                                 const fast_recipe_options&, fast_steps<float>&, std::vector<fast_recipe_head<float>>&,
                                 std::vector<recipe_extras_head>&, fast_matrix<float>&);

}  // namespace attn
