// core/fast_blocks.cpp — the blocks of the fast forwards (core/fast_blocks.hpp).
#include "core/fast_blocks.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "core/fast_parallel.hpp"

namespace attn::blocks {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_between(clock_type::time_point a, clock_type::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// The online softmax of one row over one block of kv scores s (in place → P): the
// running max m and sum l, and the output row o rescaled when the max grows. Only the
// first `vis` keys are visible (the causal mask); the rest of P is 0.
template <class T>
void online_row(const plan<T>& p, T* s, std::size_t kv, std::size_t vis, const softmax_row_inputs<T>& in, T& m,
                T& l, bool& any, T* o) {
    std::fill(s + vis, s + kv, T(0));
    if (vis == 0) return;
    bool visible = false;
    const T block_max = p.ops.row_scores(s, s, vis, in, visible);
    any = any || visible;
    const T m_new = std::max(m, block_max);
    if (!std::isfinite(m_new)) {  // nothing finite yet (or +inf): contributes nothing; flagged at the end if it stays
        std::fill(s, s + vis, T(0));
        if (m_new > 0) m = m_new;
        return;
    }
    const T sum = p.ops.exp_sum(s, vis, m_new);
    if (m_new != m) {
        const T corr = std::isfinite(m) ? std::exp(m - m_new) : T(0);
        l *= corr;
        p.ops.scale(o, p.d_v, corr);
    }
    l += sum;
    m = m_new;
}

// out [b, d_v] (row stride ldo) = P [b, kv] (row stride ldp) · V [j0 … j0 + kv) + beta · out.
template <class T>
void times_v(const plan<T>& p, std::size_t b, std::size_t j0, std::size_t kv, const T* pr, std::size_t ldp, T beta,
             T* out, std::size_t ldo) {
    if (p.v)
        p.ops.block_rows_b(b, p.d_v, kv, pr, ldp, p.v + j0 * p.ldv, p.ldv, T(1), beta, out, ldo);
    else
        p.ops.block_rows(b, p.d_v, kv, pr, ldp, p.packed_v + (j0 / key_block) * p.v_stride(), T(1), beta, out, ldo);
}

}  // namespace

template <class T>
void size_packed_kv(const kernels::gemm_ops<T>& ops, std::size_t n_k, std::size_t d_k, std::size_t d_v,
                    std::vector<T>& packed_k, std::vector<T>& packed_v) {
    packed_k.resize(kernels::strips(n_k, ops.nr) * ops.nr * d_k);  // Kᵀ strips [⌈n_k/nr⌉, d_k, nr]
    packed_v.resize(v_in_place(ops, d_v) ? 0 : kernels::strips(n_k, key_block) * kernels::strips(d_v, ops.nr) * ops.nr * key_block);
}

// Key blocks of 256 hold whole strips of K (nr divides 256 in every set), so a task's
// strips are exactly the strips pack_b would write for the whole of K.
template <class T>
void pack_kv_task(const kernels::gemm_ops<T>& ops, std::size_t task, std::size_t n_k, std::size_t d_k, std::size_t d_v,
                  const T* k, std::size_t ldk, const T* v, std::size_t ldv, T* packed_k, T* packed_v) {
    const std::size_t j0 = task * key_block, kv = std::min(key_block, n_k - j0);
    ops.pack_b(true, d_k, kv, k + j0 * ldk, ldk, packed_k + (j0 / ops.nr) * d_k * ops.nr);  // Kᵀ [d_k, kv]
    if (d_v > 0 && !v_in_place(ops, d_v))
        ops.pack_b(false, kv, d_v, v + j0 * ldv, ldv, packed_v + task * kernels::strips(d_v, ops.nr) * ops.nr * key_block);
}

template <class T>
void pack_kv(const kernels::gemm_ops<T>& ops, std::size_t n_k, std::size_t d_k, std::size_t d_v, const T* k,
             std::size_t ldk, const T* v, std::size_t ldv, std::vector<T>& packed_k, std::vector<T>& packed_v) {
    size_packed_kv(ops, n_k, d_k, d_v, packed_k, packed_v);
    for (std::size_t task = 0; task < kernels::strips(n_k, key_block); ++task)
        pack_kv_task(ops, task, n_k, d_k, d_v, k, ldk, v, ldv, packed_k.data(), packed_v.data());
}

template <class T>
void kept_block(const plan<T>& p, std::size_t r0, std::size_t b, T* raw, T* w, T* out, std::size_t ldo,
                unsigned char* flags, times& t) {
    const auto t0 = clock_type::now();
    p.ops.block_rows(b, p.n_k, p.d_k, p.q + r0 * p.ldq, p.ldq, p.packed_k, T(1), T(0), raw, p.n_k);  // [b, n_k] Q_block Kᵀ
    t.scores += seconds_between(t0, clock_type::now());
    kept_block_after_scores(p, r0, b, raw, w, out, ldo, flags, t);
}

// Every tile of the scores goes through the same arithmetic whichever rows and keys
// its product covers (core/kernels.hpp), so these are kept_block's bits.
template <class T>
void key_block_scores(const plan<T>& p, std::size_t j0, std::size_t kv, T* raw, times& t) {
    const auto t0 = clock_type::now();
    p.ops.block_rows(p.n_q, kv, p.d_k, p.q, p.ldq, p.packed_k + (j0 / p.ops.nr) * p.d_k * p.ops.nr, T(1), T(0),
                     raw + j0, p.n_k);  // [n_q, kv] Q K_blockᵀ
    t.scores += seconds_between(t0, clock_type::now());
}

template <class T>
void kept_block_after_scores(const plan<T>& p, std::size_t r0, std::size_t b, T* raw, T* w, T* out, std::size_t ldo,
                             unsigned char* flags, times& t) {
    const auto& ops = p.ops;
    const auto t1 = clock_type::now();
    for (std::size_t i = 0; i < b; ++i)
        flags[i] = ops.softmax_row(raw + i * p.n_k, w + i * p.n_k, p.n_k, p.row_inputs(r0 + i, 0));
    const auto t2 = clock_type::now();
    for (std::size_t j0 = 0; j0 < p.n_k && p.d_v > 0; j0 += key_block) {  // [b, d_v] W_block V, 256 keys at a time
        const std::size_t kv = std::min(key_block, p.n_k - j0);
        times_v(p, b, j0, kv, w + j0, p.n_k, j0 == 0 ? T(0) : T(1), out, ldo);
    }
    const auto t3 = clock_type::now();
    t.softmax += seconds_between(t1, t2);
    t.output += seconds_between(t2, t3);
}

template <class T>
void fused_block(const plan<T>& p, std::size_t r0, std::size_t b, T* out, std::size_t ldo, unsigned char* flags,
                 T* lse, std::vector<T>& scratch, times& t) {
    const auto& ops = p.ops;
    scratch.resize(b * key_block + 3 * b);
    T* s = scratch.data();  // [b, 256] scores, then P
    T* m = s + b * key_block;  // [b] running max
    T* l = m + b;              // [b] running sum
    T* any = l + b;            // [b] 1 once a visible key was seen
    std::fill(m, m + b, -std::numeric_limits<T>::infinity());
    std::fill(l, l + 2 * b, T(0));
    for (std::size_t i = 0; i < b; ++i) std::fill(out + i * ldo, out + i * ldo + p.d_v, T(0));
    for (std::size_t j0 = 0; j0 < p.n_k; j0 += key_block) {
        const std::size_t kv = std::min(key_block, p.n_k - j0);
        if (p.visible(r0 + b - 1, j0, kv) == 0) break;  // causal: no row of the block sees these keys or later ones
        const auto t0 = clock_type::now();
        ops.block_rows(b, kv, p.d_k, p.q + r0 * p.ldq, p.ldq, p.packed_k + (j0 / ops.nr) * p.d_k * ops.nr, T(1), T(0),
                       s, key_block);  // [b, kv] Q_block K_blockᵀ
        const auto t1 = clock_type::now();
        for (std::size_t i = 0; i < b; ++i) {
            bool seen = any[i] != T(0);
            online_row(p, s + i * key_block, kv, p.visible(r0 + i, j0, kv), p.row_inputs(r0 + i, j0), m[i], l[i], seen,
                       out + i * ldo);
            any[i] = seen ? T(1) : T(0);
        }
        const auto t2 = clock_type::now();
        if (p.d_v > 0)
            times_v(p, b, j0, kv, s, key_block, T(1), out, ldo);  // out += P V_block
        const auto t3 = clock_type::now();
        t.scores += seconds_between(t0, t1);
        t.softmax += seconds_between(t1, t2);
        t.output += seconds_between(t2, t3);
    }
    for (std::size_t i = 0; i < b; ++i) {  // normalise; a row with no distribution is 0, flagged
        flags[i] = any[i] == T(0) || !std::isfinite(m[i]);
        if (flags[i]) std::fill(out + i * ldo, out + i * ldo + p.d_v, T(0));
        else ops.scale(out + i * ldo, p.d_v, T(1) / l[i]);
        if (lse) lse[i] = flags[i] ? -std::numeric_limits<T>::infinity() : m[i] + std::log(l[i]);
    }
}

template <class T>
void key_block_partial(const plan<T>& p, std::size_t j0, std::size_t kv, T* s, T* part, times& t) {
    const auto& ops = p.ops;
    T* m = part;                // [n_q]
    T* l = m + p.n_q;           // [n_q]
    T* any = l + p.n_q;         // [n_q]
    T* o = any + p.n_q;         // [n_q, d_v]
    const auto t0 = clock_type::now();
    ops.block_rows(p.n_q, kv, p.d_k, p.q, p.ldq, p.packed_k + (j0 / ops.nr) * p.d_k * ops.nr, T(1), T(0), s,
                   key_block);  // [n_q, kv] Q K_blockᵀ
    const auto t1 = clock_type::now();
    for (std::size_t i = 0; i < p.n_q; ++i) {
        T* r = s + i * key_block;
        bool visible = false;
        m[i] = ops.row_scores(r, r, kv, p.row_inputs(i, j0), visible);
        any[i] = visible ? T(1) : T(0);
        if (std::isfinite(m[i])) {
            l[i] = ops.exp_sum(r, kv, m[i]);
        } else {  // contributes nothing; the merge flags the row if no block does
            std::fill(r, r + kv, T(0));
            l[i] = 0;
        }
    }
    const auto t2 = clock_type::now();
    if (p.d_v > 0) times_v(p, p.n_q, j0, kv, s, key_block, T(0), o, p.d_v);  // [n_q, d_v] P V_block
    const auto t3 = clock_type::now();
    t.scores += seconds_between(t0, t1);
    t.softmax += seconds_between(t1, t2);
    t.output += seconds_between(t2, t3);
}

template <class T>
void merge_key_blocks(const plan<T>& p, std::size_t r0, std::size_t b, const T* parts, std::size_t n_parts,
                      std::size_t part_stride, T* out, std::size_t ldo, unsigned char* flags) {
    const std::size_t n_q = p.n_q;
    for (std::size_t i = r0; i < r0 + b; ++i) {
        T* o = out + (i - r0) * ldo;
        std::fill(o, o + p.d_v, T(0));
        bool any = false;
        T m = -std::numeric_limits<T>::infinity();
        for (std::size_t j = 0; j < n_parts; ++j) {
            const T* part = parts + j * part_stride;
            any = any || part[2 * n_q + i] != T(0);
            m = std::max(m, part[i]);
        }
        flags[i - r0] = !any || !std::isfinite(m);
        if (flags[i - r0]) continue;
        T l = 0;
        for (std::size_t j = 0; j < n_parts; ++j) {
            const T* part = parts + j * part_stride;
            if (!std::isfinite(part[i])) continue;  // −inf: nothing seen in this block
            const T c = std::exp(part[i] - m);
            l += c * part[n_q + i];
            const T* oj = part + 3 * n_q + i * p.d_v;
            for (std::size_t d = 0; d < p.d_v; ++d) o[d] += c * oj[d];
        }
        p.ops.scale(o, p.d_v, T(1) / l);
    }
}

void run_pack_then_blocks(unsigned slots, std::size_t n_pack, std::size_t n_blocks,
                          const std::function<void(std::size_t, std::size_t)>& pack,
                          const std::function<void(std::size_t, std::size_t)>& block) {
    std::atomic<std::size_t> next_pack{0}, packed{0}, next_block{0};
    auto work = [&](std::size_t slot) {
        for (std::size_t task = next_pack++; task < n_pack; task = next_pack++) {
            pack(task, slot);
            packed.fetch_add(1, std::memory_order_release);
        }
        while (packed.load(std::memory_order_acquire) < n_pack) std::this_thread::yield();  // others' last tasks
        for (std::size_t blk = next_block++; blk < n_blocks; blk = next_block++) block(blk, slot);
    };
    const bool pooled = slots > 1 && run_on_shared_pool(slots, slots, [&](std::size_t begin, std::size_t end) {
        for (std::size_t slot = begin; slot < end; ++slot) work(slot);
    });
    if (!pooled) work(0);
}

#define ATTN_BLOCKS_INSTANTIATE(T)                                                                                   \
    template void pack_kv<T>(const kernels::gemm_ops<T>&, std::size_t, std::size_t, std::size_t, const T*,            \
                             std::size_t, const T*, std::size_t, std::vector<T>&, std::vector<T>&);                   \
    template void size_packed_kv<T>(const kernels::gemm_ops<T>&, std::size_t, std::size_t, std::size_t,               \
                                    std::vector<T>&, std::vector<T>&);                                                \
    template void pack_kv_task<T>(const kernels::gemm_ops<T>&, std::size_t, std::size_t, std::size_t, std::size_t,    \
                                  const T*, std::size_t, const T*, std::size_t, T*, T*);                             \
    template void kept_block<T>(const plan<T>&, std::size_t, std::size_t, T*, T*, T*, std::size_t, unsigned char*,   \
                                times&);                                                                             \
    template void key_block_partial<T>(const plan<T>&, std::size_t, std::size_t, T*, T*, times&);                   \
    template void merge_key_blocks<T>(const plan<T>&, std::size_t, std::size_t, const T*, std::size_t, std::size_t,   \
                                      T*, std::size_t, unsigned char*);                                              \
    template void key_block_scores<T>(const plan<T>&, std::size_t, std::size_t, T*, times&);                          \
    template void kept_block_after_scores<T>(const plan<T>&, std::size_t, std::size_t, T*, T*, T*, std::size_t,       \
                                             unsigned char*, times&);                                                \
    template void fused_block<T>(const plan<T>&, std::size_t, std::size_t, T*, std::size_t, unsigned char*, T*,      \
                                 std::vector<T>&, times&);
ATTN_BLOCKS_INSTANTIATE(float)
ATTN_BLOCKS_INSTANTIATE(double)
#undef ATTN_BLOCKS_INSTANTIATE

}  // namespace attn::blocks
