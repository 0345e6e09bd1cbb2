// model/layers.cpp — the forward passes of a GPT block (see layers.hpp).
#include "model/layers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/matmul.hpp"
#include "model/gpt_forward.hpp"

namespace attn::model {

template <class T>
T gelu_tanh(T x) {
    const T c = static_cast<T>(0.7978845608028654);  // √(2/π)
    return static_cast<T>(0.5) * x * (static_cast<T>(1) + std::tanh(c * (x + static_cast<T>(0.044715) * x * x * x)));
}

template <class T>
void embed_forward(T* embed, T* pos_embed, const int* tokens, const T* wte, const T* wpe, std::size_t n,
                   std::size_t n_pos, std::size_t d) {
    for (std::size_t i = 0; i < n; ++i) {
        const T* e = wte + static_cast<std::size_t>(tokens[i]) * d;  // [d]
        const T* p = wpe + (i % n_pos) * d;                          // [d]
        std::copy(e, e + d, embed + i * d);
        std::copy(p, p + d, pos_embed + i * d);
    }
}

template <class T>
void layer_norm_forward(T* normalized, T* mean, T* rstd, T* out, const T* x, const T* w, const T* b, std::size_t n,
                        std::size_t d, double eps) {
    for (std::size_t i = 0; i < n; ++i) {
        const T* row = x + i * d;  // [d]
        T m = 0;
        for (std::size_t j = 0; j < d; ++j) m += row[j];
        m /= static_cast<T>(d);
        T var = 0;  // two passes: the mean first, so large offsets do not cancel
        for (std::size_t j = 0; j < d; ++j) var += (row[j] - m) * (row[j] - m);
        var /= static_cast<T>(d);
        const T r = static_cast<T>(1) / std::sqrt(var + static_cast<T>(eps));
        for (std::size_t j = 0; j < d; ++j) {
            const T xh = (row[j] - m) * r;
            normalized[i * d + j] = xh;
            out[i * d + j] = xh * w[j] + b[j];
        }
        mean[i] = m;
        rstd[i] = r;
    }
}

template <class T>
void linear_forward(T* out, const T* x, const T* w, const T* bias, std::size_t n, std::size_t d_in, std::size_t d_out,
                    std::size_t ld_w, std::size_t col0) {
    matmul(false, false, n, d_out, d_in, T(1), x, d_in, w + col0, ld_w, T(0), out, d_out);
    if (!bias) return;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d_out; ++j) out[i * d_out + j] += bias[col0 + j];
}

template <class T>
void softmax_rows_forward(T* out, const T* x, std::size_t n, std::size_t c) {
    for (std::size_t i = 0; i < n; ++i) {
        const T* row = x + i * c;  // [c]
        T* o = out + i * c;        // [c]
        const T mx = *std::max_element(row, row + c);
        T sum = 0;
        for (std::size_t j = 0; j < c; ++j) sum += (o[j] = std::isinf(row[j]) && row[j] < 0 ? T(0) : std::exp(row[j] - mx));
        for (std::size_t j = 0; j < c; ++j) o[j] /= sum;
    }
}

// One (b, h): the head's rows of q, k, v are every H·dh-th run of dh values.
template <class T>
void attention_head(T* s, T* p, T* z, const T* q, const T* k, const T* v, std::size_t n_pos, std::size_t ld,
                    std::size_t d_head) {
    const T scale = static_cast<T>(1) / std::sqrt(static_cast<T>(d_head));
    matmul(false, true, n_pos, n_pos, d_head, scale, q, ld, k, ld, T(0), s, n_pos);  // s: [P, P]
    for (std::size_t i = 0; i < n_pos; ++i)
        for (std::size_t j = i + 1; j < n_pos; ++j) s[i * n_pos + j] = -std::numeric_limits<T>::infinity();
    softmax_rows_forward(p, s, n_pos, n_pos);                                         // p: [P, P]
    matmul(false, false, n_pos, d_head, n_pos, T(1), p, n_pos, v, ld, T(0), z, ld);  // z: [P, dh] in [P, H·dh]
}

template <class T>
void attention_forward(T* scores, T* pattern, T* z, const T* q, const T* k, const T* v, std::size_t batch,
                       std::size_t n_pos, std::size_t heads, std::size_t d_head) {
    const std::size_t d = heads * d_head, map = n_pos * n_pos;
    for (std::size_t b = 0; b < batch; ++b)
        for (std::size_t h = 0; h < heads; ++h) {
            const std::size_t at = b * n_pos * d + h * d_head;  // (b, pos 0, h, 0) in [B, P, H, dh]
            const std::size_t m = (b * heads + h) * map;        // (b, h) in [B, H, P, P]
            attention_head(scores + m, pattern + m, z + at, q + at, k + at, v + at, n_pos, d, d_head);
        }
}

template <class T>
void gelu_forward(T* out, const T* x, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = gelu_tanh(x[i]);
}

template <class T>
void residual_forward(T* out, const T* a, const T* b, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

#define ATTN_MODEL_LAYERS(T)                                                                                           \
    template T gelu_tanh<T>(T);                                                                                        \
    template void embed_forward<T>(T*, T*, const int*, const T*, const T*, std::size_t, std::size_t, std::size_t);   \
    template void layer_norm_forward<T>(T*, T*, T*, T*, const T*, const T*, const T*, std::size_t, std::size_t,      \
                                        double);                                                                     \
    template void linear_forward<T>(T*, const T*, const T*, const T*, std::size_t, std::size_t, std::size_t,         \
                                    std::size_t, std::size_t);                                                       \
    template void attention_forward<T>(T*, T*, T*, const T*, const T*, const T*, std::size_t, std::size_t,           \
                                       std::size_t, std::size_t);                                                    \
    template void softmax_rows_forward<T>(T*, const T*, std::size_t, std::size_t);                                   \
    template void gelu_forward<T>(T*, const T*, std::size_t);                                                        \
    template void residual_forward<T>(T*, const T*, const T*, std::size_t);
ATTN_MODEL_LAYERS(float)
ATTN_MODEL_LAYERS(double)
#undef ATTN_MODEL_LAYERS

}  // namespace attn::model
