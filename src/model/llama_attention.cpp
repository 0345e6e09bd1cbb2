// model/llama_attention.cpp — causal grouped-query attention, forward and backward, and
// one decoding step against a KV cache (see llama_layers.hpp). Every product is one
// core/matmul call per head on strided views of the [B, T, heads, dh] buffers; the
// softmax and its backward are loops over one row, in key order.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/fast_softmax.hpp"
#include "core/matmul.hpp"
#include "core/shape_error.hpp"
#include "model/llama_layers.hpp"
#include "model/llama_threads.hpp"
#include "model/train_simd.hpp"

namespace attn::model::llama {

namespace {

constexpr std::size_t query_block = 64;  // query rows per task of the forward

// Scratch `which` (0: scores, 1: pattern) of the calling thread, at least n values.
template <class T>
T* scratch_rows(int which, std::size_t n) {
    thread_local std::vector<T> rows[2];
    if (rows[which].size() < n) rows[which].resize(n);
    return rows[which].data();
}

void check_heads(std::size_t H, std::size_t KV) {
    if (KV == 0 || H % KV != 0)
        throw shape_error("grouped-query attention: " + std::to_string(H) + " query heads do not split into " +
                          std::to_string(KV) + " key/value heads");
}

// One score row s [n] of which keys 0 … last are seen: the rest set to −∞, the pattern
// a [n] its softmax (0 where blocked), by the core's vectorised row softmax
// (core/fast_softmax: the fast forward's, same bits on any thread count).
template <class T>
void softmax_row(T* a, T* s, std::size_t last, std::size_t n) {
    fast_softmax_row(s, a, last + 1, softmax_row_inputs<T>{});
    for (std::size_t u = last + 1; u < n; ++u) {
        s[u] = -std::numeric_limits<T>::infinity();  // the future, blocked
        a[u] = 0;
    }
}

// dscores row from the pattern row a and dpattern row da (keys 0 … last seen; the rest 0).
template <class T>
void softmax_backward_row(T* ds, T* da, const T* a, std::size_t last, std::size_t n) {
    T row_dot = 0;  // Σ_k A_k dA_k
    for (std::size_t u = 0; u <= last; ++u) row_dot += a[u] * da[u];
    for (std::size_t u = 0; u <= last; ++u) ds[u] = a[u] * (da[u] - row_dot);
    for (std::size_t u = last + 1; u < n; ++u) da[u] = ds[u] = 0;
}

// The softmax rows above, for model/train_simd's vector attention.
const training::simd::gqa_rows gqa_softmax_rows{softmax_row<float>, softmax_backward_row<float>};

}  // namespace

template <class T>
void gqa_attention_forward(T* z, maybe_null<T> scores, maybe_null<T> pattern, const T* q, const T* k, const T* v,
                           std::size_t B, std::size_t Tn, std::size_t H, std::size_t KV, std::size_t dh,
                           training::grid_faults* unkept) {
    check_heads(H, KV);
    const std::size_t group = H / KV, ldq = H * dh, ldk = KV * dh;
    const T scale = T(1) / std::sqrt(static_cast<T>(dh));
    // One (batch row, query head, block of query rows) per task: rows t0 … t1 − 1 see keys
    // 0 … t1 − 1 only, so the products skip the masked corner past the block.
    const std::size_t blocks = count_blocks(Tn, query_block);
    const bool watch = unkept && (!scores || !pattern);  // scratch rows to check
    std::vector<training::grid_faults> faults(watch ? B * H * blocks : 0);  // [task] each task's own
    training::for_tasks(B * H * blocks, [&](std::size_t task) {
        const std::size_t map = task / blocks, b = map / H, h = map % H, g = h / group;
        const std::size_t t0 = (task % blocks) * query_block, t1 = std::min(Tn, t0 + query_block);
        const T* qh = q + (b * Tn + t0) * ldq + h * dh;  // [t1 − t0, dh] rows ldq apart
        const T* kg = k + b * Tn * ldk + g * dh;          // [T, dh] rows ldk apart
        const T* vg = v + b * Tn * ldk + g * dh;          // [T, dh] rows ldk apart
        // [t1 − t0, T] rows of [T, T], or this thread's scratch when the stage is not kept
        T* s = scores ? scores + (map * Tn + t0) * Tn : scratch_rows<T>(0, query_block * Tn);
        T* a = pattern ? pattern + (map * Tn + t0) * Tn : scratch_rows<T>(1, query_block * Tn);
        if constexpr (std::is_same<T, float>::value)  // AVX-512 at T ≤ 16: these matmul calls' bits
            if (blocks == 1 && training::simd::gqa_fits(Tn, dh))
                return training::simd::gqa_forward({qh, kg, vg, ldq, ldk, Tn, dh, scale},
                                                   {z + b * Tn * ldq + h * dh, s, a}, gqa_softmax_rows);
        matmul(false, true, t1 - t0, t1, dh, scale, qh, ldq, kg, ldk, T(0), s, Tn);
        for (std::size_t t = t0; t < t1; ++t) softmax_row(a + (t - t0) * Tn, s + (t - t0) * Tn, t, Tn);
        if (watch) training::note_grid_faults(faults[task], s, a, map * Tn + t0, t0, t1 - t0, Tn);
        matmul(false, false, t1 - t0, dh, t1, T(1), a, Tn, vg, ldk, T(0), z + (b * Tn + t0) * ldq + h * dh, ldq);
    });
    if (watch) *unkept = training::first_grid_faults(faults);
}

template <class T>
void gqa_attention_backward(T* dq, T* dk, T* dv, T* dscores, T* dpattern, const T* dz, const T* q, const T* k,
                            const T* v, const T* pattern, std::size_t B, std::size_t Tn, std::size_t H,
                            std::size_t KV, std::size_t dh) {
    check_heads(H, KV);
    const std::size_t group = H / KV, ldq = H * dh, ldk = KV * dh;
    const T scale = T(1) / std::sqrt(static_cast<T>(dh));
    // One (batch row, key/value head) per task: it alone writes that group's dk, dv and
    // its heads' dq, the heads (and their blocks of query rows) adding in order.
    training::for_tasks(B * KV, [&](std::size_t task) {
        const std::size_t b = task / KV, g = task % KV;
        const T* kg = k + b * Tn * ldk + g * dh;  // [T, dh] rows ldk apart
        const T* vg = v + b * Tn * ldk + g * dh;
        T* dkg = dk + b * Tn * ldk + g * dh;
        T* dvg = dv + b * Tn * ldk + g * dh;
        for (std::size_t t = 0; t < Tn; ++t) {  // this task's slices of dk, dv [T, dh] and dq [T, group·dh], zeroed
            std::fill(dkg + t * ldk, dkg + t * ldk + dh, T(0));
            std::fill(dvg + t * ldk, dvg + t * ldk + dh, T(0));
            T* dqt = dq + (b * Tn + t) * ldq + g * group * dh;
            std::fill(dqt, dqt + group * dh, T(0));
        }
        for (std::size_t h = g * group; h < (g + 1) * group; ++h) {
            if constexpr (std::is_same<T, float>::value)  // AVX-512 at T ≤ 16: these matmul calls' bits
                if (Tn <= query_block && training::simd::gqa_fits(Tn, dh)) {
                    const std::size_t map = (b * H + h) * Tn * Tn;
                    const std::size_t rows = b * Tn * ldq + h * dh;
                    training::simd::gqa_backward({q + rows, kg, vg, ldq, ldk, Tn, dh, scale},
                                                 {pattern + map, dz + rows, dq + rows, dkg, dvg, dpattern + map,
                                                  dscores + map},
                                                 gqa_softmax_rows);
                    continue;
                }
            for (std::size_t t0 = 0; t0 < Tn; t0 += query_block) {  // rows t0 … t1 − 1 see keys 0 … t1 − 1
                const std::size_t t1 = std::min(Tn, t0 + query_block), rows = t1 - t0;
                const std::size_t map = ((b * H + h) * Tn + t0) * Tn;
                const T* a = pattern + map;  // [rows, T] rows of [T, T]
                T* da = dpattern + map;      // [rows, T]
                T* ds = dscores + map;       // [rows, T]
                const T* qh = q + (b * Tn + t0) * ldq + h * dh;    // [rows, dh] rows ldq apart
                const T* dzh = dz + (b * Tn + t0) * ldq + h * dh;  // [rows, dh]
                T* dqh = dq + (b * Tn + t0) * ldq + h * dh;        // [rows, dh]
                matmul(false, true, rows, t1, dh, T(1), dzh, ldq, vg, ldk, T(0), da, Tn);  // dA = dz · vᵀ
                for (std::size_t t = t0; t < t1; ++t)
                    softmax_backward_row(ds + (t - t0) * Tn, da + (t - t0) * Tn, a + (t - t0) * Tn, t, Tn);
                matmul(false, false, rows, dh, t1, scale, ds, Tn, kg, ldk, T(1), dqh, ldq);  // dq += dS · k / √dh
                matmul(true, false, t1, dh, rows, scale, ds, Tn, qh, ldq, T(1), dkg, ldk);   // dk += dSᵀ · q / √dh
                matmul(true, false, t1, dh, rows, T(1), a, Tn, dzh, ldq, T(1), dvg, ldk);    // dv += Aᵀ · dz
            }
        }
    });
}

// ---- decoding ----------------------------------------------------------------------

template <class T>
kv_cache<T> make_kv_cache(std::size_t B, std::size_t capacity, std::size_t KV, std::size_t dh) {
    kv_cache<T> c;
    c.capacity = capacity;
    c.kv_heads = KV;
    c.d_head = dh;
    c.batch = B;
    c.k.assign(B * KV * dh * capacity, T(0));  // [B, KV, dh, capacity]
    c.v.assign(B * KV * capacity * dh, T(0));  // [B, KV, capacity, dh]
    return c;
}

namespace {
template <class T>
void check_decode(const kv_cache<T>& c, const rotary_table& tab, std::size_t H) {
    if (c.length >= c.capacity)
        throw shape_error("KV cache: full at " + std::to_string(c.capacity) + " positions");
    if (tab.d_head != c.d_head)
        throw shape_error("KV cache: d_head = " + std::to_string(c.d_head) + " but the rotary table's is " +
                          std::to_string(tab.d_head));
    check_heads(H, c.kv_heads);
}

// Appends position t's rotated keys (column t of each head's [dh, capacity]) and its
// values (row t of each head's [capacity, dh]) to the cache.
template <class T>
void cache_append(kv_cache<T>& c, T* rot_k, const T* k_t, const T* v_t, const rotary_table& tab) {
    const std::size_t t = c.length, KV = c.kv_heads, dh = c.d_head, cap = c.capacity;
    for (std::size_t b = 0; b < c.batch; ++b) {
        rotary_forward(rot_k, k_t + b * KV * dh, tab, 1, 1, KV, t);  // [KV, dh]
        for (std::size_t g = 0; g < KV; ++g) {
            T* kc = c.k.data() + (b * KV + g) * dh * cap + t;        // column t of [dh, capacity]
            T* vc = c.v.data() + ((b * KV + g) * cap + t) * dh;      // row t of [capacity, dh]
            for (std::size_t i = 0; i < dh; ++i) kc[i * cap] = rot_k[g * dh + i], vc[i] = v_t[(b * KV + g) * dh + i];
        }
    }
    c.length = t + 1;
}
}  // namespace

template <class T>
void gqa_decode_step(T* z, maybe_null<T> scores, maybe_null<T> pattern, T* rot_q, kv_cache<T>& c,
                     const T* q_t, const T* k_t, const T* v_t, const rotary_table& tab, std::size_t H) {
    check_decode(c, tab, H);
    const std::size_t t = c.length, n = t + 1, KV = c.kv_heads, dh = c.d_head, group = H / KV, cap = c.capacity;
    rotary_forward(rot_q, q_t, tab, c.batch, 1, H, t);  // throws past the table's positions
    cache_append(c, scratch_rows<T>(0, KV * dh), k_t, v_t, tab);
    const T scale = T(1) / std::sqrt(static_cast<T>(dh));
    // One (batch row, key/value head) each, its query heads in turn, so the cached keys and
    // values they share come from memory once; all of them on the calling thread when the
    // cache read is small (decode_parallel_bytes). The products are core/matmul's rows
    // (matmul_row), the bits of matmul with one query row, keys read as [dh, n] and values
    // as [n, dh] in place.
    const std::size_t cache_bytes = c.batch * KV * n * dh * 2 * sizeof(T);  // the keys and values read
    const std::size_t tasks = cache_bytes < decode_parallel_bytes ? 1 : c.batch * KV, per_task = c.batch * H / tasks;
    training::for_tasks(tasks, [&](std::size_t i) {
        for (std::size_t task = i * per_task; task < (i + 1) * per_task; ++task) {  // task = b·H + h
            const std::size_t b = task / H, h = task % H, g = b * KV + h / group;
            const T* kg = c.k.data() + g * dh * cap;  // [dh, n] rows cap apart
            const T* vg = c.v.data() + g * cap * dh;  // [n, dh]
            T* s = scores ? scores + task * n : scratch_rows<T>(0, n);     // [n]
            T* a = pattern ? pattern + task * n : scratch_rows<T>(1, n);  // [n]
            matmul_row(n, dh, scale, rot_q + task * dh, kg, cap, T(0), s);
            softmax_row(a, s, t, n);
            matmul_row(dh, n, T(1), a, vg, dh, T(0), z + task * dh);
        }
    });
}

// ---- instantiations --------------------------------------------------------------

#define ATTN_LLAMA_ATTENTION(T)                                                                                \
    template void gqa_attention_forward<T>(T*, T*, T*, const T*, const T*, const T*, std::size_t, std::size_t, \
                                           std::size_t, std::size_t, std::size_t, training::grid_faults*);     \
    template void gqa_attention_backward<T>(T*, T*, T*, T*, T*, const T*, const T*, const T*, const T*,        \
                                            const T*, std::size_t, std::size_t, std::size_t, std::size_t,      \
                                            std::size_t);                                                      \
    template kv_cache<T> make_kv_cache<T>(std::size_t, std::size_t, std::size_t, std::size_t);                 \
    template void gqa_decode_step<T>(T*, T*, T*, T*, kv_cache<T>&, const T*, const T*, const T*,               \
                                     const rotary_table&, std::size_t);

ATTN_LLAMA_ATTENTION(float)
ATTN_LLAMA_ATTENTION(double)

}  // namespace attn::model::llama
