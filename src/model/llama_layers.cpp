// model/llama_layers.cpp — RMSNorm, rotary embeddings and the SwiGLU MLP of the Llama
// family, forward and backward (see llama_layers.hpp for shapes and formulas; the
// attention and the decoding step are in llama_attention.cpp). Plain loops, one fixed
// order each, blocks fixed by the sizes.
#include "model/llama_layers.hpp"

#include <cmath>
#include <functional>
#include <string>
#include <type_traits>

#include "core/rope.hpp"
#include "core/shape_error.hpp"
#include "model/llama_threads.hpp"
#include "model/train_layers.hpp"
#include "model/train_simd.hpp"

namespace attn::model::llama {

// ---- RMSNorm ---------------------------------------------------------------------

template <class T>
void rms_norm_forward(T* out, maybe_null<T> normalized, T* rstd, const T* inp, const T* w, std::size_t N,
                      std::size_t C, double eps) {
    for_blocks(N, row_block, [&](std::size_t r0, std::size_t r1) {
        std::size_t done = r0;  // AVX-512 when chosen: 16 rows at a time, the same bits
        if constexpr (std::is_same<T, float>::value)
            done += training::simd::rms_norm_rows(out + r0 * C, normalized ? normalized + r0 * C : nullptr, rstd + r0,
                                                  inp + r0 * C, w, r1 - r0, C, static_cast<float>(eps));
        for (std::size_t r = done; r < r1; ++r) {
            const T* x = inp + r * C;  // [C]
            T ms = 0;
            for (std::size_t i = 0; i < C; ++i) ms += x[i] * x[i];
            ms /= static_cast<T>(C);
            const T s = T(1) / std::sqrt(ms + static_cast<T>(eps));
            T* o = out + r * C;  // [C]
            for (std::size_t i = 0; i < C; ++i) o[i] = (x[i] * s) * w[i];
            if (normalized != nullptr)
                for (std::size_t i = 0; i < C; ++i) normalized[r * C + i] = x[i] * s;
            rstd[r] = s;
        }
    });
}

namespace {
// One row's dx: g = dout ⊙ w, x̂ = x · s; dx += s · (g − x̂ · mean(g ⊙ x̂)).
template <class T>
void rms_norm_backward_row(T* dx, const T* d, const T* x, const T* w, T s, std::size_t C, bool add) {
    T gx_mean = 0;
    for (std::size_t i = 0; i < C; ++i) gx_mean += (d[i] * w[i]) * (x[i] * s);
    gx_mean /= static_cast<T>(C);
    for (std::size_t i = 0; i < C; ++i) dx[i] = (add ? dx[i] : T(0)) + ((d[i] * w[i]) - (x[i] * s) * gx_mean) * s;
}
}  // namespace

// dw by blocks of columns (each column sums its rows in order), dinp by blocks of rows.
template <class T>
void rms_norm_backward(T* dinp, T* dw, const T* dout, const T* inp, const T* w, const T* rstd, std::size_t N,
                       std::size_t C, training::grad_mode mode) {
    const std::size_t col_tasks = count_blocks(C, col_block);
    training::for_tasks(col_tasks + count_blocks(N, row_block), [&](std::size_t t) {
        if (t < col_tasks) {
            const std::size_t i0 = t * col_block, i1 = std::min(C, i0 + col_block);
            std::size_t v1 = i0;  // AVX-512 when chosen: whole vectors of columns, rows in order
            if constexpr (std::is_same<T, float>::value)
                v1 += training::simd::rms_norm_dw(dw + i0, dout + i0, inp + i0, rstd, N, C, i1 - i0);
            for (std::size_t r = 0; r < N; ++r)
                for (std::size_t i = v1; i < i1; ++i) dw[i] += dout[r * C + i] * (inp[r * C + i] * rstd[r]);
            return;
        }
        const std::size_t r0 = (t - col_tasks) * row_block, r1 = std::min(N, r0 + row_block);
        std::size_t done = r0;  // AVX-512 when chosen: 16 rows at a time, the same bits
        if constexpr (std::is_same<T, float>::value)
            done += training::simd::rms_norm_backward_rows(dinp + r0 * C, dout + r0 * C, inp + r0 * C, w, rstd + r0,
                                                           r1 - r0, C, mode == training::grad_mode::add);
        for (std::size_t r = done; r < r1; ++r)
            rms_norm_backward_row(dinp + r * C, dout + r * C, inp + r * C, w, rstd[r], C,
                                  mode == training::grad_mode::add);
    });
}

// ---- rotary embeddings -------------------------------------------------------------

rotary_table make_rotary_table(const rotary_spec& spec, std::size_t d_head, std::size_t positions) {
    const std::size_t dims = spec.dims == 0 ? d_head : spec.dims;
    if (dims % 2 != 0 || dims == 0)
        throw shape_error("rotary embeddings turn pairs of columns: " + std::to_string(dims) +
                          " rotary dimensions is not a positive even number");
    if (dims > d_head)
        throw shape_error("rotary embeddings: " + std::to_string(dims) + " rotary dimensions but d_head = " +
                          std::to_string(d_head));
    if (!(spec.theta > 1.0) || !std::isfinite(spec.theta))
        throw shape_error("rotary embeddings: theta must be a finite number > 1");
    if (!spec.frequencies.empty() && spec.frequencies.size() != dims / 2)
        throw shape_error("rotary embeddings: " + std::to_string(spec.frequencies.size()) + " frequencies for " +
                          std::to_string(dims / 2) + " pairs");
    for (double f : spec.frequencies)
        if (!std::isfinite(f)) throw shape_error("rotary embeddings: a frequency is not a finite number");
    rotary_table tab;
    tab.d_head = d_head;
    tab.dims = dims;
    tab.positions = positions;
    tab.pairing = spec.pairing;
    const std::size_t pairs = dims / 2;
    tab.cos.resize(positions * pairs);  // [positions, dims/2]
    tab.sin.resize(positions * pairs);  // [positions, dims/2]
    for (std::size_t p = 0; p < positions; ++p)
        for (std::size_t i = 0; i < pairs; ++i) {
            const double f = spec.frequencies.empty() ? rope_frequency(i, dims, spec.theta)  // core/rope's
                                                      : spec.frequencies[i];
            const double angle = static_cast<double>(p) * f;
            tab.cos[p * pairs + i] = std::cos(angle);
            tab.sin[p * pairs + i] = std::sin(angle);
        }
    return tab;
}

namespace {
void check_rotary_range(const rotary_table& tab, std::size_t Tn, std::size_t pos0) {
    if (pos0 + Tn > tab.positions)
        throw shape_error("rotary embeddings: positions up to " + std::to_string(pos0 + Tn) + " but the table has " +
                          std::to_string(tab.positions));
}

// The two columns of pair i: (2i, 2i+1) or (i, i + dims/2).
inline void pair_columns(const rotary_table& tab, std::size_t i, std::size_t& a, std::size_t& b) {
    if (tab.pairing == rotary_pairing::adjacent) {
        a = 2 * i;
        b = 2 * i + 1;
    } else {
        a = i;
        b = i + tab.dims / 2;
    }
}

// Calls row(r, pos) for every (b, t) row of [B, T, …], pos = pos0 + t, in blocks of rows.
void for_rows(std::size_t B, std::size_t Tn, std::size_t pos0,
              const std::function<void(std::size_t, std::size_t)>& row) {
    for_blocks(B * Tn, row_block, [&](std::size_t r0, std::size_t r1) {
        for (std::size_t r = r0; r < r1; ++r) row(r, pos0 + r % Tn);
    });
}
}  // namespace

template <class T>
void rotary_forward(T* out, const T* x, const rotary_table& tab, std::size_t B, std::size_t Tn, std::size_t heads,
                    std::size_t pos0) {
    check_rotary_range(tab, Tn, pos0);
    const std::size_t dh = tab.d_head, pairs = tab.dims / 2;
    for_rows(B, Tn, pos0, [&](std::size_t r, std::size_t pos) {
        const double* cs = tab.cos.data() + pos * pairs;  // [dims/2]
        const double* sn = tab.sin.data() + pos * pairs;  // [dims/2]
        for (std::size_t h = 0; h < heads; ++h) {
            const T* xi = x + (r * heads + h) * dh;  // [dh]
            T* o = out + (r * heads + h) * dh;       // [dh]
            for (std::size_t i = 0; i < pairs; ++i) {
                std::size_t ia = 0, ib = 0;
                pair_columns(tab, i, ia, ib);
                const T a = xi[ia], b = xi[ib], c = static_cast<T>(cs[i]), s = static_cast<T>(sn[i]);
                o[ia] = a * c - b * s;
                o[ib] = a * s + b * c;
            }
            if (o != xi)
                for (std::size_t j = tab.dims; j < dh; ++j) o[j] = xi[j];
        }
    });
}

template <class T>
void rotary_backward(T* dinp, const T* dout, const rotary_table& tab, std::size_t B, std::size_t Tn,
                     std::size_t heads, std::size_t pos0, training::grad_mode mode) {
    check_rotary_range(tab, Tn, pos0);
    const bool add = mode == training::grad_mode::add;
    const std::size_t dh = tab.d_head, pairs = tab.dims / 2;
    for_rows(B, Tn, pos0, [&](std::size_t r, std::size_t pos) {
        const double* cs = tab.cos.data() + pos * pairs;  // [dims/2]
        const double* sn = tab.sin.data() + pos * pairs;  // [dims/2]
        for (std::size_t h = 0; h < heads; ++h) {
            const T* d = dout + (r * heads + h) * dh;  // [dh]
            T* dx = dinp + (r * heads + h) * dh;       // [dh]
            for (std::size_t i = 0; i < pairs; ++i) {
                std::size_t ia = 0, ib = 0;
                pair_columns(tab, i, ia, ib);
                const T da = d[ia], db = d[ib], c = static_cast<T>(cs[i]), s = static_cast<T>(sn[i]);
                dx[ia] = (add ? dx[ia] : T(0)) + (da * c + db * s);
                dx[ib] = (add ? dx[ib] : T(0)) + (db * c - da * s);
            }
            for (std::size_t j = tab.dims; j < dh; ++j) dx[j] = (add ? dx[j] : T(0)) + d[j];
        }
    });
}

// ---- SwiGLU ------------------------------------------------------------------------

template <class T>
void silu_gate_forward(T* post, const T* gate, const T* up, std::size_t n) {
    for_blocks(n, elem_block, [&](std::size_t i0, std::size_t i1) {
        std::size_t i = i0;
        if constexpr (std::is_same<T, float>::value)  // AVX-512 when chosen: the same bits (model/train_simd)
            i += training::simd::silu_gate_forward(post + i0, gate + i0, up + i0, i1 - i0);
        for (; i < i1; ++i) {
            const T g = gate[i];
            const T sig = T(1) / (T(1) + std::exp(-g));
            post[i] = (g * sig) * up[i];
        }
    });
}

template <class T>
void silu_gate_backward(T* dgate, T* dup, const T* dpost, const T* gate, const T* up, std::size_t n,
                        training::grad_mode mode) {
    const bool add = mode == training::grad_mode::add;
    for_blocks(n, elem_block, [&](std::size_t i0, std::size_t i1) {
        std::size_t i = i0;
        if constexpr (std::is_same<T, float>::value)  // AVX-512 when chosen: the same bits (model/train_simd)
            i += training::simd::silu_gate_backward(dgate + i0, dup + i0, dpost + i0, gate + i0, up + i0, i1 - i0,
                                                    add);
        for (; i < i1; ++i) {
            const T g = gate[i];
            const T sig = T(1) / (T(1) + std::exp(-g));
            dgate[i] = (add ? dgate[i] : T(0)) + dpost[i] * up[i] * (sig * (T(1) + g * (T(1) - sig)));
            dup[i] = (add ? dup[i] : T(0)) + dpost[i] * (g * sig);
        }
    });
}

template <class T>
void swiglu_forward(T* out, T* gate, T* up, T* post, const T* inp, const swiglu_weights<T>& w, std::size_t N,
                    std::size_t C, std::size_t F) {
    training::linear_forward(gate, inp, w.w_gate, w.b_gate, N, C, F);
    training::linear_forward(up, inp, w.w_up, w.b_up, N, C, F);
    silu_gate_forward(post, gate, up, N * F);
    training::linear_forward(out, post, w.w_down, w.b_down, N, F, C);
}

template <class T>
void swiglu_backward(T* dinp, const swiglu_grads<T>& g, T* scratch, const T* dout, const T* inp, const T* gate,
                     const T* up, const T* post, const swiglu_weights<T>& w, std::size_t N, std::size_t C,
                     std::size_t F) {
    const std::size_t n = N * F;
    T* dpost = scratch;          // [N, F]
    T* dgate = scratch + n;      // [N, F]
    T* dup = scratch + 2 * n;    // [N, F]
    for (std::size_t i = 0; i < 3 * n; ++i) scratch[i] = 0;
    training::linear_backward(dpost, g.w_down, g.b_down, dout, post, w.w_down, N, F, C);
    silu_gate_backward(dgate, dup, dpost, gate, up, n);
    training::linear_backward(dinp, g.w_gate, g.b_gate, dgate, inp, w.w_gate, N, C, F);
    training::linear_backward(dinp, g.w_up, g.b_up, dup, inp, w.w_up, N, C, F);
}

// ---- instantiations --------------------------------------------------------------

#define ATTN_LLAMA_LAYERS(T)                                                                                   \
    template void rms_norm_forward<T>(T*, T*, T*, const T*, const T*, std::size_t, std::size_t, double);       \
    template void rms_norm_backward<T>(T*, T*, const T*, const T*, const T*, const T*, std::size_t,            \
                                       std::size_t, training::grad_mode);                                                           \
    template void rotary_forward<T>(T*, const T*, const rotary_table&, std::size_t, std::size_t, std::size_t,  \
                                    std::size_t);                                                              \
    template void rotary_backward<T>(T*, const T*, const rotary_table&, std::size_t, std::size_t, std::size_t, \
                                     std::size_t, training::grad_mode);                                                             \
    template void silu_gate_forward<T>(T*, const T*, const T*, std::size_t);                                   \
    template void silu_gate_backward<T>(T*, T*, const T*, const T*, const T*, std::size_t, training::grad_mode);                    \
    template void swiglu_forward<T>(T*, T*, T*, T*, const T*, const swiglu_weights<T>&, std::size_t,           \
                                    std::size_t, std::size_t);                                                 \
    template void swiglu_backward<T>(T*, const swiglu_grads<T>&, T*, const T*, const T*, const T*, const T*,   \
                                     const T*, const swiglu_weights<T>&, std::size_t, std::size_t, std::size_t);

ATTN_LLAMA_LAYERS(float)
ATTN_LLAMA_LAYERS(double)

}  // namespace attn::model::llama
