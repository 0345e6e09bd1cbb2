// model/circuits.cpp — QK and OV circuits and composition scores from the weights, in
// float64, with small dense matrices of our own (row-major).
#include "model/circuits.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace attn::model {

namespace {

struct dmat {
    std::size_t rows = 0, cols = 0;
    std::vector<double> a;  // [rows, cols]
    double& at(std::size_t i, std::size_t j) { return a[i * cols + j]; }
    double at(std::size_t i, std::size_t j) const { return a[i * cols + j]; }
};

dmat zeros(std::size_t r, std::size_t c) { return {r, c, std::vector<double>(r * c, 0.0)}; }

dmat mul(const dmat& x, const dmat& y) {
    dmat out = zeros(x.rows, y.cols);
    for (std::size_t i = 0; i < x.rows; ++i)
        for (std::size_t k = 0; k < x.cols; ++k) {
            const double v = x.at(i, k);
            for (std::size_t j = 0; j < y.cols; ++j) out.at(i, j) += v * y.at(k, j);
        }
    return out;
}

dmat transposed(const dmat& x) {
    dmat out = zeros(x.cols, x.rows);
    for (std::size_t i = 0; i < x.rows; ++i)
        for (std::size_t j = 0; j < x.cols; ++j) out.at(j, i) = x.at(i, j);
    return out;
}

// One head's matrices after TransformerLens's processing.
struct head_mats {
    dmat wq, wk, wv;   // [C, hs] ln1's weight folded in (diag(w) · W)
    dmat wo;           // [hs, C] rows centred
    dmat gq, gk, gv;   // [hs, hs] W_Qᵀ W_Q, W_Kᵀ W_K, W_Vᵀ W_V
    dmat go;           // [hs, hs] W_O W_Oᵀ
};

template <class T>
head_mats head_matrices(const model_params<T>& p, std::size_t l, std::size_t h) {
    const architecture& c = p.config;
    const std::size_t C = c.n_embd, hs = c.d_head(), W = p.blocks[l].w_qkv.shape(1);
    const auto& b = p.blocks[l];
    head_mats m;
    dmat* parts[3] = {&m.wq, &m.wk, &m.wv};
    // The fused projection is q | k | v = H·hs | KV·hs | KV·hs columns; query head h reads
    // key/value head h / (H / KV) (grouped-query attention; GPT-2: KV = H, H·hs = C).
    const std::size_t H = c.n_head, KV = c.kv_heads(), g = h / (H / KV);
    const std::size_t col0[3] = {h * hs, H * hs + g * hs, H * hs + KV * hs + g * hs};
    for (std::size_t s = 0; s < 3; ++s) {
        *parts[s] = zeros(C, hs);
        for (std::size_t i = 0; i < C; ++i)
            for (std::size_t e = 0; e < hs; ++e)
                parts[s]->at(i, e) = static_cast<double>(b.ln1_w(i)) * static_cast<double>(b.w_qkv.data()[i * W + col0[s] + e]);
    }
    m.wo = zeros(hs, C);
    const bool centre = c.norm == norm_kind::layer_norm;  // an RMSNorm keeps the mean: W_O as it is
    for (std::size_t e = 0; e < hs; ++e) {
        double mean = 0;
        for (std::size_t i = 0; i < C && centre; ++i) mean += static_cast<double>(b.w_out.data()[(h * hs + e) * C + i]);
        mean /= static_cast<double>(C);
        for (std::size_t i = 0; i < C; ++i) m.wo.at(e, i) = static_cast<double>(b.w_out.data()[(h * hs + e) * C + i]) - mean;
    }
    m.gq = mul(transposed(m.wq), m.wq);
    m.gk = mul(transposed(m.wk), m.wk);
    m.gv = mul(transposed(m.wv), m.wv);
    m.go = mul(m.wo, transposed(m.wo));
    return m;
}

// ‖U · M · V‖_F from G_U = UᵀU and G_V = V Vᵀ: √(Σ (G_U M) ⊙ (M G_V)).
double frobenius(const dmat& gu, const dmat& m, const dmat& gv) {
    const dmat x = mul(gu, m), y = mul(m, gv);
    double s = 0;
    for (std::size_t i = 0; i < x.a.size(); ++i) s += x.a[i] * y.a[i];
    return std::sqrt(std::max(0.0, s));
}

// A composition score whose head writes or reads nothing (a zero norm) is 0, never nan.
double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

dmat identity(std::size_t n) {
    dmat out = zeros(n, n);
    for (std::size_t i = 0; i < n; ++i) out.at(i, i) = 1.0;
    return out;
}

void check_head(const architecture& c, std::size_t layer, std::size_t head) {
    if (layer >= c.n_layer) throw attn::error(fmt::format("layer {} does not exist: the model has {} layers (0..{})", layer, c.n_layer, c.n_layer - 1));
    if (head >= c.n_head)
        throw attn::error(fmt::format("head {} does not exist: the model has {} head{} (0..{})", head, c.n_head, c.n_head == 1 ? "" : "s", c.n_head - 1));
}

// The first n rows of W_E, each through ln1's folded matrix x: [n, hs].
template <class T>
dmat embedded(const model_params<T>& p, const dmat& x, std::size_t n) {
    const std::size_t C = p.config.n_embd;
    dmat e = zeros(n, C);
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t i = 0; i < C; ++i) e.at(t, i) = static_cast<double>(p.wte(t, i));
    return mul(e, x);
}

std::vector<std::vector<double>> rows_of(const dmat& m) {
    std::vector<std::vector<double>> out(m.rows);
    for (std::size_t i = 0; i < m.rows; ++i) out[i].assign(m.a.begin() + static_cast<long>(i * m.cols), m.a.begin() + static_cast<long>((i + 1) * m.cols));
    return out;
}

}  // namespace

template <class T>
std::vector<std::vector<double>> full_qk_circuit(const model_params<T>& p, std::size_t layer, std::size_t head, std::size_t n) {
    check_head(p.config, layer, head);
    const head_mats m = head_matrices(p, layer, head);
    return rows_of(mul(embedded(p, m.wq, n), transposed(embedded(p, m.wk, n))));
}

template <class T>
std::vector<std::vector<double>> full_ov_circuit(const model_params<T>& p, std::size_t layer, std::size_t head, std::size_t n) {
    check_head(p.config, layer, head);
    const head_mats m = head_matrices(p, layer, head);
    const std::size_t C = p.config.n_embd;
    dmat u = zeros(C, n);  // [C, n] diag(ln_final.w) · W_U, its first n columns
    for (std::size_t i = 0; i < C; ++i)
        for (std::size_t t = 0; t < n; ++t)
            u.at(i, t) = (p.lnf_w.size() ? static_cast<double>(p.lnf_w(i)) : 1.0) *
                         static_cast<double>(p.config.tied ? p.wte(t, i) : p.lm_head(t, i));
    return rows_of(mul(mul(embedded(p, m.wv, n), m.wo), u));
}

template <class T>
std::vector<composition> composition_scores(const model_params<T>& p, std::size_t layer, std::size_t head) {
    const architecture& c = p.config;
    check_head(c, layer, head);
    std::vector<std::vector<head_mats>> heads(c.n_layer);  // [layer][head]
    for (std::size_t l = 0; l < c.n_layer; ++l)
        for (std::size_t h = 0; h < c.n_head; ++h) heads[l].push_back(head_matrices(p, l, h));
    const dmat I = identity(c.d_head());
    std::vector<composition> out;
    for (std::size_t la = 0; la < c.n_layer; ++la)
        for (std::size_t ha = 0; ha < c.n_head; ++ha) {
            const head_mats& A = heads[la][ha];
            const double ov_a = frobenius(A.gv, I, A.go);
            for (std::size_t lb = la + 1; lb < c.n_layer; ++lb)
                for (std::size_t hb = 0; hb < c.n_head; ++hb) {
                    if (!(la == layer && ha == head) && !(lb == layer && hb == head)) continue;
                    const head_mats& B = heads[lb][hb];
                    const double qk_b = frobenius(B.gq, I, B.gk), ov_b = frobenius(B.gv, I, B.go);
                    composition s{la, ha, lb, hb, 0, 0, 0};
                    s.q = ratio(frobenius(A.gv, mul(A.wo, B.wq), B.gk), ov_a * qk_b);
                    s.k = ratio(frobenius(A.gv, mul(A.wo, B.wk), B.gq), ov_a * qk_b);
                    s.v = ratio(frobenius(A.gv, mul(A.wo, B.wv), B.go), ov_a * ov_b);
                    out.push_back(s);
                }
        }
    return out;
}

#define ATTN_CIRCUITS(T)                                                                                               \
    template std::vector<std::vector<double>> full_qk_circuit<T>(const model_params<T>&, std::size_t, std::size_t,      \
                                                                  std::size_t);                                         \
    template std::vector<std::vector<double>> full_ov_circuit<T>(const model_params<T>&, std::size_t, std::size_t,      \
                                                                  std::size_t);                                         \
    template std::vector<composition> composition_scores<T>(const model_params<T>&, std::size_t, std::size_t);

ATTN_CIRCUITS(float)
ATTN_CIRCUITS(double)

}  // namespace attn::model
