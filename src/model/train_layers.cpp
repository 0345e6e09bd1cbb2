// model/train_layers.cpp — the training layers' forward and backward passes (see the
// header for the shapes and the formulas). Plain loops, one fixed order each.
#include "model/train_layers.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include <cblas.h>

#include "core/fast_parallel.hpp"
#include "core/matmul.hpp"
#include "model/finite_check.hpp"
#include "model/stop_request.hpp"
#include "model/train_simd.hpp"

namespace attn::model::training {

// ---- threads: fixed blocks, whatever the thread count ------------------------------
//
// Work is cut into blocks whose bounds depend on the sizes only (never on the thread
// count), and each block is computed by one thread, whole, with a single-threaded
// product: so every number is computed the same way with 1 thread or 8, and a seed
// gives the same checkpoint bytes. (OpenBLAS's own threading does not promise that.)

namespace {
std::unique_ptr<row_pool>& pool() {
    static std::unique_ptr<row_pool> p;  // the training's threads (set_threads)
    return p;
}

std::size_t count_blocks(std::size_t n, std::size_t block) { return (n + block - 1) / block; }

// Calls body(first, last) over blocks of `block` items covering [0, n), in parallel.
void for_blocks(std::size_t n, std::size_t block, const std::function<void(std::size_t, std::size_t)>& body) {
    for_tasks(count_blocks(n, block), [&](std::size_t b) { body(b * block, std::min(n, (b + 1) * block)); });
}

constexpr std::size_t row_block = 32;  // rows of a product's output per block (22 tasks at N = 704: both threads busy)
constexpr std::size_t col_block = 16;  // rows of a weight gradient per block
constexpr unsigned pool_spin_us = 50;     // how long an idle worker polls for the next pass
}  // namespace

void set_threads(unsigned threads) {
    // One thread per block; the blocks make the parallelism. core/matmul is told so too:
    // left at its default (every hardware thread) a block's product would hand slices to
    // the shared pool from inside this pool (threads over threads), and --threads 1 would
    // still use every core for the large products.
    openblas_set_num_threads(1);
    set_matmul_threads(1);
    // The workers poll between the ~60 parallel passes of a step (each 10–200 µs) rather
    // than sleep: a futex wake-up costs 20–60 µs on a VM, as long as a pass.
    pool().reset();
    if (threads > 1) pool() = std::make_unique<row_pool>(threads, pool_spin_us);
}

// Each thread takes the next task from a shared counter, so tasks of unequal sizes
// balance; a task's numbers never depend on which thread runs it.
void for_tasks(std::size_t n, const std::function<void(std::size_t)>& task) {
    if (!pool() || n < 2) {
        for (std::size_t i = 0; i < n && !stop_pending(); ++i) task(i);
        check_stop();  // Ctrl-C: the tasks left were skipped, their results never used
        return;
    }
    std::atomic<std::size_t> next{0};
    pool()->run(pool()->threads(), [&](std::size_t, std::size_t) {
        for (std::size_t i = next.fetch_add(1); i < n && !stop_pending(); i = next.fetch_add(1)) task(i);
    });
    check_stop();  // on the calling thread, once every worker is back
}

// ---- embeddings ------------------------------------------------------------------

template <class T>
void embed_forward(T* out, const std::int32_t* tokens, const T* wte, const T* wpe, std::size_t B,
                     std::size_t Tn, std::size_t C) {
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < Tn; ++t) {
            T* o = out + (b * Tn + t) * C;                                 // [C]
            const T* e = wte + static_cast<std::size_t>(tokens[b * Tn + t]) * C;  // [C]
            if (wpe == nullptr) {  // rotary positions: no learned position embedding
                std::copy(e, e + C, o);
                continue;
            }
            const T* p = wpe + t * C;                                      // [C]
            for (std::size_t i = 0; i < C; ++i) o[i] = e[i] + p[i];
        }
}

template <class T>
void embed_backward(T* dwte, T* dwpe, const T* dout, const std::int32_t* tokens, std::size_t B,
                      std::size_t Tn, std::size_t C) {
    // Rows in order: a token seen twice adds its two gradients in the same order every run.
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < Tn; ++t) {
            const T* d = dout + (b * Tn + t) * C;
            T* de = dwte + static_cast<std::size_t>(tokens[b * Tn + t]) * C;
            if (dwpe == nullptr) {  // rotary positions
                for (std::size_t i = 0; i < C; ++i) de[i] += d[i];
                continue;
            }
            T* dp = dwpe + t * C;
            for (std::size_t i = 0; i < C; ++i) {
                de[i] += d[i];
                dp[i] += d[i];
            }
        }
}

// ---- layer norm ------------------------------------------------------------------

namespace {
// One row's dx: dnorm = dout ⊙ w; dx += s · (dnorm − mean(dnorm) − x̂ · mean(dnorm ⊙ x̂)).
template <class T>
void layer_norm_backward_row(T* dx, const T* d, const T* x, const T* w, T m, T s, std::size_t C, bool add) {
    T dnorm_mean = 0, dnorm_norm_mean = 0;
    for (std::size_t i = 0; i < C; ++i) {
        const T xhat = (x[i] - m) * s;
        const T dnorm = w[i] * d[i];
        dnorm_mean += dnorm;
        dnorm_norm_mean += dnorm * xhat;
    }
    dnorm_mean /= static_cast<T>(C);
    dnorm_norm_mean /= static_cast<T>(C);
    std::size_t i = 0;
    if constexpr (std::is_same<T, float>::value)  // AVX-512 when chosen: the same operations
        i = simd::norm_dx(dx, d, x, w, m, s, dnorm_mean, dnorm_norm_mean, C, add);
    for (; i < C; ++i) {
        const T xhat = (x[i] - m) * s;
        const T dnorm = w[i] * d[i];
        dx[i] = (add ? dx[i] : T(0)) + (dnorm - dnorm_mean - xhat * dnorm_norm_mean) * s;
    }
}
}  // namespace

template <class T>
void layer_norm_forward(T* out, T* mean, T* rstd, const T* inp, const T* w, const T* b, std::size_t N,
                       std::size_t C, double eps, T* normalized) {
    for_blocks(N, row_block, [&](std::size_t r0, std::size_t r1) {
        std::size_t done = r0;  // AVX-512 when chosen: 16 rows at a time, the same bits
        if constexpr (std::is_same<T, float>::value)
            done += simd::layer_norm_rows(out + r0 * C, normalized ? normalized + r0 * C : nullptr, mean + r0,
                                          rstd + r0, inp + r0 * C, w, b, r1 - r0, C, static_cast<float>(eps));
        for (std::size_t r = done; r < r1; ++r) {
            const T* x = inp + r * C;
            T m = 0;
            for (std::size_t i = 0; i < C; ++i) m += x[i];
            m /= static_cast<T>(C);
            T v = 0;
            for (std::size_t i = 0; i < C; ++i) v += (x[i] - m) * (x[i] - m);
            v /= static_cast<T>(C);
            const T s = T(1) / std::sqrt(v + static_cast<T>(eps));
            T* o = out + r * C;
            std::size_t i = 0;
            if constexpr (std::is_same<T, float>::value) i = simd::norm_out(o, x, w, b, m, s, C);  // AVX-512 when chosen
            for (; i < C; ++i) o[i] = (x[i] - m) * s * w[i] + b[i];
            if (normalized)
                for (i = 0; i < C; ++i) normalized[r * C + i] = (x[i] - m) * s;
            mean[r] = m;
            rstd[r] = s;
        }
    });
}

// One set of tasks: dw and db by blocks of columns (each column sums its rows in order,
// so the bits never depend on the blocks), dinp by blocks of rows.
template <class T>
void layer_norm_backward(T* dinp, T* dw, T* db, const T* dout, const T* inp, const T* w, const T* mean,
                        const T* rstd, std::size_t N, std::size_t C, grad_mode mode) {
    const std::size_t col_tasks = count_blocks(C, col_block);
    for_tasks(col_tasks + count_blocks(N, row_block), [&](std::size_t t) {
        if (t < col_tasks) {
            const std::size_t i0 = t * col_block, i1 = std::min(C, i0 + col_block);
            std::size_t done = i0;  // AVX-512 when chosen: whole vectors over all rows, the same operations
            if constexpr (std::is_same<T, float>::value)
                done += simd::norm_param_grads_rows(dw + i0, db + i0, dout + i0, inp + i0, mean, rstd, N, C, i1 - i0);
            for (std::size_t r = 0; r < N && done < i1; ++r) {
                const T* x = inp + r * C;
                const T* d = dout + r * C;
                const T m = mean[r], s = rstd[r];
                std::size_t i = done;
                if constexpr (std::is_same<T, float>::value)
                    i += simd::norm_param_grads(dw + done, db + done, d + done, x + done, m, s, i1 - done);
                for (; i < i1; ++i) {
                    const T xhat = (x[i] - m) * s;
                    db[i] += d[i];
                    dw[i] += xhat * d[i];
                }
            }
            return;
        }
        const std::size_t r0 = (t - col_tasks) * row_block, r1 = std::min(N, r0 + row_block);
        std::size_t r = r0;  // AVX-512 when chosen: 16 rows at a time, the same bits
        if constexpr (std::is_same<T, float>::value)
            r += simd::layer_norm_backward_rows(dinp + r0 * C, dout + r0 * C, inp + r0 * C, w, mean + r0, rstd + r0,
                                                r1 - r0, C, mode == grad_mode::add);
        for (; r < r1; ++r) layer_norm_backward_row(dinp + r * C, dout + r * C, inp + r * C, w, mean[r], rstd[r], C,
                                                    mode == grad_mode::add);
    });
}

// ---- linear layers and the unembedding -------------------------------------------

template <class T>
void linear_residual_forward(T* out, T* sum, const T* x, const T* inp, const T* w, const T* b, std::size_t N,
                             std::size_t IC, std::size_t OC) {
    // A local reference: inside the lambda a thread_local's name would mean the worker's own copy.
    thread_local packed_matrix<T> packed;
    packed_matrix<T>& wp = packed;  // w [IC, OC] packed once for every row block
    pack_once(wp, false, IC, OC, w, OC);
    for_blocks(N, row_block, [&](std::size_t r0, std::size_t r1) {
        matmul_packed(false, r1 - r0, T(1), inp + r0 * IC, IC, wp, T(0), out + r0 * OC, OC);
        if (b != nullptr)
            for (std::size_t r = r0; r < r1; ++r) {
                std::size_t o = 0;
                if constexpr (std::is_same<T, float>::value) o = simd::add(out + r * OC, b, OC);  // AVX-512 when chosen
                for (; o < OC; ++o) out[r * OC + o] += b[o];
            }
        if (sum != nullptr) {  // residual_forward's sums, the block's rows still in cache
            std::size_t i = r0 * OC;
            if constexpr (std::is_same<T, float>::value) i += simd::plus(sum + i, x + i, out + i, (r1 - r0) * OC);
            for (; i < r1 * OC; ++i) sum[i] = x[i] + out[i];
        }
    });
}

template <class T>
void linear_forward(T* out, const T* inp, const T* w, const T* b, std::size_t N, std::size_t IC,
                    std::size_t OC) {
    linear_residual_forward(out, static_cast<T*>(nullptr), static_cast<const T*>(nullptr), inp, w, b, N, IC, OC);
}

// The three gradients of a linear layer as one set of tasks (one wait, not three):
// dw row blocks first (the largest), then db, then dinp row blocks.
template <class T>
void linear_backward(T* dinp, T* dw, T* db, const T* dout, const T* inp, const T* w, std::size_t N,
                     std::size_t IC, std::size_t OC, grad_mode mode) {
    thread_local packed_matrix<T> packed_w, packed_dout;
    packed_matrix<T>& wt = packed_w;       // wᵀ [OC, IC], packed once (a reference: see linear_forward)
    packed_matrix<T>& dp = packed_dout;    // dout [N, OC]
    pack_once(wt, true, OC, IC, w, OC);
    pack_once(dp, false, N, OC, dout, OC);
    const std::size_t dw_tasks = count_blocks(IC, col_block), db_tasks = db == nullptr ? 0 : 1;
    for_tasks(dw_tasks + db_tasks + count_blocks(N, row_block), [&](std::size_t t) {
        if (t < dw_tasks) {  // dw += inpᵀ · dout, rows i0…i1 of dw
            const std::size_t i0 = t * col_block, i1 = std::min(IC, i0 + col_block);
            return matmul_packed(true, i1 - i0, T(1), inp + i0, IC, dp, T(1), dw + i0 * OC, OC);
        }
        if (t < dw_tasks + db_tasks) {  // db += Σ_r dout[r], rows in order
            std::size_t done = 0;  // AVX-512 when chosen: whole vectors over all rows
            if constexpr (std::is_same<T, float>::value) done = simd::column_sums(db, dout, N, OC, OC);
            for (std::size_t r = 0; r < N && done < OC; ++r)
                for (std::size_t o = done; o < OC; ++o) db[o] += dout[r * OC + o];
            return;
        }
        const std::size_t r0 = (t - dw_tasks - db_tasks) * row_block, r1 = std::min(N, r0 + row_block);
        const T beta = mode == grad_mode::add ? T(1) : T(0);
        matmul_packed(false, r1 - r0, T(1), dout + r0 * OC, OC, wt, beta, dinp + r0 * IC, IC);  // dinp (+)= dout · wᵀ
    });
}

template <class T>
void unembed_forward(T* logits, const T* x, const T* w, std::size_t N, std::size_t C, std::size_t V) {
    if (N <= row_block) return matmul(false, true, N, V, C, T(1), x, C, w, C, T(0), logits, V);  // one block: no packing ahead
    // wᵀ packed a slice of vocab_block columns at a time (a vocabulary of 50,257 would be
    // 154 MB packed whole), each slice once for every row block (was once per row block).
    constexpr std::size_t vocab_block = 4096;
    thread_local packed_matrix<T> packed;
    packed_matrix<T>& wt = packed;  // [C, vocab_block] (a reference: see linear_forward)
    for (std::size_t v0 = 0; v0 < V; v0 += vocab_block) {
        const std::size_t v1 = std::min(V, v0 + vocab_block);
        pack_once(wt, true, C, v1 - v0, w + v0 * C, C);
        for_blocks(N, row_block, [&](std::size_t r0, std::size_t r1) {
            matmul_packed(false, r1 - r0, T(1), x + r0 * C, C, wt, T(0), logits + r0 * V + v0, V);
        });
    }
}

template <class T>
void unembed_backward(T* dx, T* dw, const T* dlogits, const T* x, const T* w, std::size_t N, std::size_t C,
                      std::size_t V, grad_mode mode) {
    const T beta = mode == grad_mode::add ? T(1) : T(0);
    for_blocks(N, row_block, [&](std::size_t r0, std::size_t r1) {  // dx (+)= dlogits · W
        matmul(false, false, r1 - r0, C, V, T(1), dlogits + r0 * V, V, w, C, beta, dx + r0 * C, C);
    });
    for_blocks(V, col_block, [&](std::size_t v0, std::size_t v1) {  // dW += dlogitsᵀ · x, rows v0…v1
        matmul(true, false, v1 - v0, C, N, T(1), dlogits + v0, V, x, C, T(1), dw + v0 * C, C);
    });
}

// ---- attention -------------------------------------------------------------------

namespace {

// One head's keys for batch row b, copied transposed (kt [hs, Tn], this thread's scratch,
// valid until its next call) so that the dot products of one query with all its keys run
// side by side, each still summing over i in order: the same bits as one dot at a time.
template <class T>
const T* head_keys(const T* qkv, std::size_t b, std::size_t h, std::size_t Tn, std::size_t C, std::size_t NH) {
    const std::size_t hs = C / NH, C3 = 3 * C;
    thread_local std::vector<T> kt_rows;
    if (kt_rows.size() < hs * Tn) kt_rows.resize(hs * Tn);
    T* kt = kt_rows.data();  // [hs, Tn]
    for (std::size_t u = 0; u < Tn; ++u) {
        const T* k = qkv + (b * Tn + u) * C3 + C + h * hs;
        for (std::size_t i = 0; i < hs; ++i) kt[i * Tn + u] = k[i];
    }
    return kt;
}

// Query rows t0 … t1 − 1 of one head's causal attention for batch row b (row t's scores at
// s_rows + (t − t0)·Tn, pattern at a_rows + (t − t0)·Tn, z), every sum in the loop order of
// the formula: a score's dot product over i = 0 … hs − 1, the softmax over keys 0 … t,
// z's sum over keys 0 … t. kt: head_keys.
template <class T>
void attention_head_rows(T* z, T* s_rows, T* a_rows, const T* kt, const T* qkv, std::size_t b, std::size_t h,
                         std::size_t t0, std::size_t t1, std::size_t Tn, std::size_t C, std::size_t NH) {
    const std::size_t hs = C / NH, C3 = 3 * C;
    const T scale = T(1) / std::sqrt(static_cast<T>(hs));
    for (std::size_t t = t0; t < t1; ++t) {
        const T* q = qkv + (b * Tn + t) * C3 + h * hs;  // [hs]
        T* s = s_rows + (t - t0) * Tn;                  // [T] one query's row
        T* a = a_rows + (t - t0) * Tn;                  // [T]
        const std::size_t n = t + 1;                   // keys 0 … t
        for (std::size_t u = 0; u < n; ++u) s[u] = 0;
        for (std::size_t i = 0; i < hs; ++i) {
            const T qi = q[i];
            const T* ki = kt + i * Tn;
            for (std::size_t u = 0; u < n; ++u) s[u] += qi * ki[u];
        }
        T maxv = -std::numeric_limits<T>::infinity();
        for (std::size_t u = 0; u < n; ++u) {
            s[u] = s[u] * scale;
            if (s[u] > maxv) maxv = s[u];
        }
        T sum = 0;
        for (std::size_t u = 0; u < n; ++u) {
            a[u] = std::exp(s[u] - maxv);
            sum += a[u];
        }
        for (std::size_t u = 0; u < n; ++u) a[u] /= sum;
        for (std::size_t u = n; u < Tn; ++u) {
            s[u] = -std::numeric_limits<T>::infinity();  // the future, blocked
            a[u] = 0;
        }
        T* zo = z + (b * Tn + t) * C + h * hs;  // [hs]
        for (std::size_t i = 0; i < hs; ++i) zo[i] = 0;
        for (std::size_t u = 0; u < n; ++u) {
            const T* v = qkv + (b * Tn + u) * C3 + 2 * C + h * hs;
            const T au = a[u];
            for (std::size_t i = 0; i < hs; ++i) zo[i] += au * v[i];
        }
    }
}

constexpr std::size_t unkept_rows = 16;  // query rows per band of scratch when the grids are not kept

// Head h of batch row b with its grids not kept: bands of query rows in this thread's
// scratch ([unkept_rows, Tn] each for scores and pattern), each checked finite into f.
template <class T>
void attention_head_unkept(T* z, const T* qkv, std::size_t b, std::size_t h, std::size_t Tn, std::size_t C,
                           std::size_t NH, grid_faults& f) {
    thread_local std::vector<T> band;
    if (band.size() < 2 * unkept_rows * Tn) band.resize(2 * unkept_rows * Tn);
    T* s = band.data();                 // [unkept_rows, Tn] scores
    T* a = s + unkept_rows * Tn;        // [unkept_rows, Tn] pattern
    std::size_t ld = 0;
    const float* vector_keys = nullptr;  // the AVX-512 path's transposed keys, when it runs
    if constexpr (std::is_same<T, float>::value) vector_keys = simd::attention_keys(qkv, b, h, Tn, C, NH, ld);
    const T* kt = vector_keys ? nullptr : head_keys(qkv, b, h, Tn, C, NH);
    for (std::size_t t0 = 0; t0 < Tn; t0 += unkept_rows) {
        const std::size_t t1 = std::min(Tn, t0 + unkept_rows);
        if constexpr (std::is_same<T, float>::value)
            if (vector_keys) simd::attention_rows(z, s, a, vector_keys, ld, qkv, b, h, t0, t1, Tn, C, NH);
        if (!vector_keys) attention_head_rows(z, s, a, kt, qkv, b, h, t0, t1, Tn, C, NH);
        note_grid_faults(f, s, a, (b * NH + h) * Tn + t0, t0, t1 - t0, Tn);
    }
}

// Batch row b with its grids not kept and every head short enough for the vector path's
// one-lane-per-key kernel (T ≤ 16): its [NH, T, T] grids in this thread's scratch.
void attention_short_unkept(float* z, const float* qkv, std::size_t b, std::size_t Tn, std::size_t C, std::size_t NH,
                            grid_faults& f) {
    thread_local std::vector<float> grids;
    if (grids.size() < 2 * NH * Tn * Tn) grids.resize(2 * NH * Tn * Tn);
    float* s = grids.data();        // [NH, T, T] scores
    float* a = s + NH * Tn * Tn;    // [NH, T, T] pattern
    simd::attention_forward(z + b * Tn * C, s, a, qkv + b * Tn * 3 * C, 0, Tn, C, NH);
    for (std::size_t h = 0; h < NH; ++h)
        note_grid_faults(f, s + h * Tn * Tn, a + h * Tn * Tn, (b * NH + h) * Tn, 0, Tn, Tn);
}

}  // namespace

template <class T>
void note_grid_faults(grid_faults& f, const T* s, const T* a, std::size_t grid_row, std::size_t t0, std::size_t rows,
                      std::size_t Tn) {
    for (std::size_t r = 0; r < rows; ++r) {
        const std::size_t seen = t0 + r + 1, at = (grid_row + r) * Tn;  // keys 0 … t; the row's first index
        if (f.scores == grid_faults::npos)
            if (const std::size_t u = first_nonfinite(s + r * Tn, seen); u != grid_faults::npos) f.scores = at + u;
        if (f.pattern == grid_faults::npos)
            if (const std::size_t u = first_nonfinite(a + r * Tn, seen); u != grid_faults::npos) f.pattern = at + u;
    }
}

grid_faults first_grid_faults(const std::vector<grid_faults>& tasks) {
    grid_faults first;
    for (const auto& t : tasks) {
        first.scores = std::min(first.scores, t.scores);
        first.pattern = std::min(first.pattern, t.pattern);
    }
    return first;
}

template <class T>
void attention_forward(T* z, T* scores, T* pattern, const T* qkv, std::size_t B, std::size_t Tn,
                       std::size_t C, std::size_t NH, grid_faults* unkept) {
    if (scores == nullptr) {  // neither grid kept: each task notes its own faults, the first of all kept
        const bool short_rows = std::is_same<T, float>::value && simd::attention_runs(Tn, C / NH);
        std::vector<grid_faults> faults(short_rows ? B : B * NH);
        for_tasks(faults.size(), [&](std::size_t task) {
            if constexpr (std::is_same<T, float>::value)
                if (short_rows) return attention_short_unkept(z, qkv, task, Tn, C, NH, faults[task]);
            attention_head_unkept(z, qkv, task / NH, task % NH, Tn, C, NH, faults[task]);
        });
        if (unkept) *unkept = first_grid_faults(faults);
        return;
    }
    if constexpr (std::is_same<T, float>::value)  // AVX-512 when chosen and the sizes fit: the same bits
        if (simd::attention_runs(Tn, C / NH))
            return for_blocks(B, 1, [&](std::size_t b, std::size_t) { simd::attention_forward(z, scores, pattern, qkv, b, Tn, C, NH); });
    // One (batch row, head) per task: heads are independent, so any thread count gives the same bits.
    for_tasks(B * NH, [&](std::size_t task) {
        const std::size_t b = task / NH, h = task % NH, grid = (b * NH + h) * Tn * Tn;
        if constexpr (std::is_same<T, float>::value)  // AVX-512 at any length: the same bits
            if (simd::attention_head_long(z, scores, pattern, qkv, b, h, Tn, C, NH)) return;
        attention_head_rows(z, scores + grid, pattern + grid, head_keys(qkv, b, h, Tn, C, NH), qkv, b, h, 0, Tn, Tn, C,
                            NH);
    });
}

template <class T>
void attention_backward(T* dqkv, T* dscores, T* dpattern, const T* dz, const T* qkv, const T* pattern,
                        std::size_t B, std::size_t Tn, std::size_t C, std::size_t NH) {
    const std::size_t hs = C / NH, C3 = 3 * C;
    const T scale = T(1) / std::sqrt(static_cast<T>(hs));
    for_blocks(B, 1, [&](std::size_t b, std::size_t) {  // a batch row writes only its own rows of dqkv
        std::fill(dqkv + b * Tn * C3, dqkv + (b + 1) * Tn * C3, T(0));  // [T, 3C], then added to
        if constexpr (std::is_same<T, float>::value)  // AVX-512 when chosen and the sizes fit: the same bits
            if (simd::attention_backward(dqkv, dscores, dpattern, dz, qkv, pattern, b, Tn, C, NH)) return;
        for (std::size_t h = 0; h < NH; ++h)
            for (std::size_t t = 0; t < Tn; ++t) {
                const T* a = pattern + ((b * NH + h) * Tn + t) * Tn;  // [T]
                T* da = dpattern + ((b * NH + h) * Tn + t) * Tn;      // [T] grad_weights
                T* ds = dscores + ((b * NH + h) * Tn + t) * Tn;       // [T] grad_scores
                const T* dzt = dz + (b * Tn + t) * C + h * hs;        // [hs]
                const T* q = qkv + (b * Tn + t) * C3 + h * hs;
                T* dq = dqkv + (b * Tn + t) * C3 + h * hs;
                T row_dot = 0;  // Σ_k A_k dA_k
                for (std::size_t u = 0; u <= t; ++u) {
                    const T* v = qkv + (b * Tn + u) * C3 + 2 * C + h * hs;
                    T* dv = dqkv + (b * Tn + u) * C3 + 2 * C + h * hs;
                    T dot = 0;
                    for (std::size_t i = 0; i < hs; ++i) {
                        dot += dzt[i] * v[i];
                        dv[i] += a[u] * dzt[i];  // grad_v = Aᵀ dz
                    }
                    da[u] = dot;
                    row_dot += a[u] * dot;
                }
                for (std::size_t u = 0; u <= t; ++u) {
                    ds[u] = a[u] * (da[u] - row_dot);
                    const T g = ds[u] * scale;  // grad_raw: w.r.t. q·k before the scale
                    const T* k = qkv + (b * Tn + u) * C3 + C + h * hs;
                    T* dk = dqkv + (b * Tn + u) * C3 + C + h * hs;
                    for (std::size_t i = 0; i < hs; ++i) {
                        dq[i] += g * k[i];
                        dk[i] += g * q[i];
                    }
                }
                for (std::size_t u = t + 1; u < Tn; ++u) da[u] = ds[u] = 0;
            }
    });
}

// ---- GELU and residuals ----------------------------------------------------------

namespace {
template <class T>
constexpr T gelu_c() {
    return static_cast<T>(0.7978845608028654);  // √(2/π)
}

// tanh through one exp: tanh(u) = 1 − 2 / (e^{2u} + 1); e^{2u} = ∞ gives 1, 0 gives −1.
// In float, expf is several times cheaper than tanhf, and GELU was half of a step's time.
inline float fast_tanh(float u) { return 1.0f - 2.0f / (std::exp(2.0f * u) + 1.0f); }
inline double fast_tanh(double u) { return std::tanh(u); }  // float64 stays exact to the last bits

}  // namespace

template <class T>
void gelu_forward(T* out, T* tanh_out, const T* inp, std::size_t n) {
    for_blocks(n, 4096, [&](std::size_t i0, std::size_t i1) {
        std::size_t i = i0;
        if constexpr (std::is_same<T, float>::value)  // AVX-512 when chosen: the same bits (model/train_simd)
            i += simd::gelu_forward(out + i0, tanh_out + i0, inp + i0, i1 - i0);
        for (; i < i1; ++i) {
            const T x = inp[i];
            const T th = fast_tanh(gelu_c<T>() * (x + T(0.044715) * x * x * x));
            tanh_out[i] = th;  // kept: the backward needs it again
            out[i] = T(0.5) * x * (T(1) + th);
        }
    });
}

template <class T>
void gelu_backward(T* dinp, const T* inp, const T* tanh_in, const T* dout, std::size_t n, grad_mode mode) {
    const bool add = mode == grad_mode::add;
    for_blocks(n, 4096, [&](std::size_t i0, std::size_t i1) {
        std::size_t i = i0;
        if constexpr (std::is_same<T, float>::value)  // AVX-512 when chosen: the same bits (model/train_simd)
            i += simd::gelu_backward(dinp + i0, inp + i0, tanh_in + i0, dout + i0, i1 - i0, add);
        for (; i < i1; ++i) {
            const T x = inp[i];
            const T th = tanh_in[i];
            const T sech2 = T(1) - th * th;
            const T du = gelu_c<T>() * (T(1) + T(3) * T(0.044715) * x * x);
            dinp[i] = (add ? dinp[i] : T(0)) + dout[i] * (T(0.5) * (T(1) + th) + T(0.5) * x * sech2 * du);
        }
    });
}

template <class T>
void residual_forward(T* out, const T* a, const T* b, std::size_t n) {
    for_blocks(n, 4096, [&](std::size_t i0, std::size_t i1) {
        for (std::size_t i = i0; i < i1; ++i) out[i] = a[i] + b[i];
    });
}

template <class T>
void residual_backward(T* da, T* db, const T* dout, std::size_t n, grad_mode mode) {
    for_blocks(n, 4096, [&](std::size_t i0, std::size_t i1) {
        std::size_t i = i0, j = i0;  // AVX-512 when chosen: the same additions, 16 at a time
        if (mode == grad_mode::write) {  // 0 + dout: dout's bits but −0's
            if constexpr (std::is_same<T, float>::value) i += simd::plus(da + i0, nullptr, dout + i0, i1 - i0);
            for (; i < i1; ++i) da[i] = T(0) + dout[i];
            std::copy(da + i0, da + i1, db + i0);
            return;
        }
        if constexpr (std::is_same<T, float>::value) {
            i += simd::add(da + i0, dout + i0, i1 - i0);
            j += simd::add(db + i0, dout + i0, i1 - i0);
        }
        for (; i < i1; ++i) da[i] += dout[i];
        for (; j < i1; ++j) db[j] += dout[j];
    });
}

// ---- the loss --------------------------------------------------------------------

template <class T>
double crossentropy_forward(T* probs, T* losses, const T* logits, const std::int32_t* targets, std::size_t N,
                            std::size_t V) {
    // Rows are independent (blocks of rows, by the sizes only); the mean adds the losses in
    // row order after.
    for_blocks(N, std::max<std::size_t>(1, 32768 / std::max<std::size_t>(V, 1)), [&](std::size_t r0, std::size_t r1) {
        for (std::size_t r = r0; r < r1; ++r) {
            const T* l = logits + r * V;
            T* p = probs + r * V;
            T maxv = l[0];
            for (std::size_t v = 1; v < V; ++v)
                if (l[v] > maxv) maxv = l[v];
            std::size_t done = 0;
            if constexpr (std::is_same<T, float>::value) {  // AVX-512 when chosen: std::exp's bits
                for (std::size_t v = 0; v < V; ++v) p[v] = l[v] - maxv;
                done = simd::exp(p, p, V);
            }
            for (std::size_t v = done; v < V; ++v) p[v] = std::exp(l[v] - maxv);
            T sum = 0;
            for (std::size_t v = 0; v < V; ++v) sum += p[v];
            for (std::size_t v = 0; v < V; ++v) p[v] /= sum;
            losses[r] = 0;
            if (targets[r] < 0) continue;
            // −log p[target] from the logits (log-sum-exp), exact where p underflows.
            losses[r] = std::log(sum) + maxv - l[targets[r]];
        }
    });
    double total = 0;
    std::size_t count = 0;
    for (std::size_t r = 0; r < N; ++r) {
        if (targets[r] < 0) continue;
        total += static_cast<double>(losses[r]);
        ++count;
    }
    return count == 0 ? 0.0 : total / static_cast<double>(count);
}

template <class T>
void crossentropy_softmax_backward(T* dlogits, const T* probs, const std::int32_t* targets, std::size_t N,
                                   std::size_t V) {
    std::size_t count = 0;
    for (std::size_t r = 0; r < N; ++r) count += targets[r] >= 0 ? 1 : 0;
    const T inv = count == 0 ? T(0) : T(1) / static_cast<T>(count);
    for (std::size_t r = 0; r < N; ++r) {
        T* d = dlogits + r * V;
        const T* p = probs + r * V;
        if (targets[r] < 0) {
            for (std::size_t v = 0; v < V; ++v) d[v] = 0;
            continue;
        }
        for (std::size_t v = 0; v < V; ++v) d[v] = p[v] * inv;
        d[targets[r]] -= inv;
    }
}

// ---- instantiations --------------------------------------------------------------

#define ATTN_TRAIN_LAYERS(T)                                                                                  \
    template void embed_forward<T>(T*, const std::int32_t*, const T*, const T*, std::size_t, std::size_t,   \
                                     std::size_t);                                                            \
    template void embed_backward<T>(T*, T*, const T*, const std::int32_t*, std::size_t, std::size_t,        \
                                      std::size_t);                                                           \
    template void layer_norm_forward<T>(T*, T*, T*, const T*, const T*, const T*, std::size_t, std::size_t,    \
                                       double, T*);                                                               \
    template void layer_norm_backward<T>(T*, T*, T*, const T*, const T*, const T*, const T*, const T*,         \
                                        std::size_t, std::size_t, grad_mode);                                 \
    template void linear_forward<T>(T*, const T*, const T*, const T*, std::size_t, std::size_t, std::size_t); \
    template void linear_residual_forward<T>(T*, T*, const T*, const T*, const T*, const T*, std::size_t,     \
                                             std::size_t, std::size_t);                                       \
    template void linear_backward<T>(T*, T*, T*, const T*, const T*, const T*, std::size_t, std::size_t,      \
                                     std::size_t, grad_mode);                                                            \
    template void unembed_forward<T>(T*, const T*, const T*, std::size_t, std::size_t, std::size_t);         \
    template void unembed_backward<T>(T*, T*, const T*, const T*, const T*, std::size_t, std::size_t,         \
                                      std::size_t, grad_mode);                                                           \
    template void attention_forward<T>(T*, T*, T*, const T*, std::size_t, std::size_t, std::size_t,           \
                                       std::size_t, grid_faults*);                                            \
    template void note_grid_faults<T>(grid_faults&, const T*, const T*, std::size_t, std::size_t, std::size_t,  \
                                      std::size_t);                                                           \
    template void attention_backward<T>(T*, T*, T*, const T*, const T*, const T*, std::size_t, std::size_t,   \
                                        std::size_t, std::size_t);                                            \
    template void gelu_forward<T>(T*, T*, const T*, std::size_t);                                                 \
    template void gelu_backward<T>(T*, const T*, const T*, const T*, std::size_t, grad_mode);                                      \
    template void residual_forward<T>(T*, const T*, const T*, std::size_t);                                   \
    template void residual_backward<T>(T*, T*, const T*, std::size_t, grad_mode);                                        \
    template double crossentropy_forward<T>(T*, T*, const T*, const std::int32_t*, std::size_t, std::size_t); \
    template void crossentropy_softmax_backward<T>(T*, const T*, const std::int32_t*, std::size_t, std::size_t);

ATTN_TRAIN_LAYERS(float)
ATTN_TRAIN_LAYERS(double)

}  // namespace attn::model::training
