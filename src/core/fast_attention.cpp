// core/fast_attention.cpp — the fast forward on attn's kernels (core/kernels.hpp).
// Per call: K packed once as product strips, V once per block of 256 keys (the packing
// shared by the threads, 256 keys per task). Per block
// of query rows (each thread pulls whole blocks; core/fast_blocks.hpp):
//   keep all / one query: Q_block Kᵀ into the kept scores, the softmax into the kept
//     weights, weights · V — the block's scores still in cache for the last two;
//   output only: the same, scores and weights in a per-thread scratch [rows, n_k]
//     (n_k ≤ 4096: 8–11% faster than the online softmax at n = 512–2048, issue 23),
//     or fused, the online softmax over blocks of 256 keys, for longer rows.
// Short queries (split_by_keys): keep all, on several threads, computes the scores of
// every row by key blocks first, each with the packing of its block, then the rest by
// rows; output only runs every pass by key blocks (flash-decoding), then merges.
#include "core/fast_attention.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <xtensor/xview.hpp>

#include "core/fast_blocks.hpp"
#include "core/internal_error.hpp"
#include "core/kernels.hpp"
#include "core/shape_check.hpp"
#include "core/shape_error.hpp"

namespace attn {

namespace {

// Same checks and messages as the reference path (core/shape_check.hpp).
template <class T>
void check_shapes(const fast_matrix<T>& q, const fast_matrix<T>& k, const fast_matrix<T>& v,
                  const fast_options<T>& o) {
    attention_shapes s{q.shape(0), q.shape(1), k.shape(0), k.shape(1), v.shape(0), v.shape(1), std::nullopt, std::nullopt};
    if (o.mask) s.mask = std::make_pair(o.mask->shape(0), o.mask->shape(1));
    if (o.bias) s.bias = std::make_pair(o.bias->shape(0), o.bias->shape(1));
    check_attention_shapes(s);
    if (o.keep == keep_mode::one_query && o.query >= q.shape(0))
        throw shape_error("query " + std::to_string(o.query) + " is out of range: Q has n_q = " +
                          std::to_string(q.shape(0)) + " rows");
}

// Output only, rows of up to whole_row_keys keys: computed whole into the thread's
// scratch (the keep-all arithmetic, not kept); longer rows: the online softmax.
template <class T>
bool whole_rows(const fast_options<T>& o, std::size_t n_k) {
    return o.keep == keep_mode::output_only && n_k <= o.whole_row_keys;
}

// Query rows per block. Keep all, and output only with whole rows: about 1 MiB of
// scores per block alone, 512 KiB with a pool (one core's L2), at least one block per
// thread. Online: 4 register tiles high, or less so that every thread gets a block.
// A whole number of tiles either way.
template <class T>
std::size_t choose_block_rows(const fast_options<T>& o, std::size_t mr, std::size_t n_q, std::size_t n_k,
                              unsigned threads) {
    if (o.block_rows > 0) return o.block_rows;
    if (o.keep == keep_mode::output_only && !whole_rows(o, n_k))  // 4 register tiles, fewer when that leaves a thread idle
        return std::min(4 * mr, kernels::strips(kernels::strips(n_q, threads), mr) * mr);
    const std::size_t bytes = threads > 1 ? (std::size_t(1) << 19) : (std::size_t(1) << 20);
    std::size_t rows = bytes / (sizeof(T) * (n_k > 0 ? n_k : 1));
    if (threads > 1) rows = std::min(rows, (n_q + threads - 1) / threads);
    rows = std::max<std::size_t>(rows, 16);
    return kernels::strips(rows, mr) * mr;
}

// Below this many score cells a call runs on the caller alone: waking a worker
// costs more than it saves.
constexpr std::size_t parallel_cells = 16 * 1024;

constexpr std::size_t max_slots = 64;

// Short queries against many keys (cross-attention, n_q = 64, n_k = 2048) on several
// threads: split the scores by key blocks first — each thread packs a block of K and
// computes that block's scores for every query row, so the packed K never crosses
// cores — then the softmax and weights · V by rows. Same tiles, same bits. Measured
// (issue 23, A/B min of calls, 2 threads, loaded machine): keep all 14–25% and output
// only (flash-decoding) 37–50% faster at 64 × 2048, the same when the machine is quiet;
// keep all 5% slower at 256 × 2048, where each thread has rows enough to reuse K well.
bool split_by_keys(std::size_t n_q, std::size_t n_k) { return n_q < 128 && 4 * n_q <= n_k; }  // threads of one call, at most

}  // namespace

template <class T>
T fast_steps<T>::masked(std::size_t i, std::size_t j) const {
    const std::size_t qi = first_query + i;
    if (mask_ && !(*mask_)(qi, j)) return masked_fill_;
    T s = scores_raw(i, j) / scale;
    if (bias_) s += (*bias_)(qi, j);
    return s;
}

template <class T>
fast_matrix<T> fast_steps<T>::materialise_masked() const {
    fast_matrix<T> m({rows(), n_k()});  // [rows, n_k]
    for (std::size_t i = 0; i < rows(); ++i)
        for (std::size_t j = 0; j < n_k(); ++j) m(i, j) = masked(i, j);
    return m;
}

template <class T>
void fast_attention(const fast_matrix<T>& q, const fast_matrix<T>& k, const fast_matrix<T>& v, fast_steps<T>& s,
                    const fast_options<T>& o) {
    check_shapes(q, k, v, o);
    const std::size_t n_q = q.shape(0), n_k = k.shape(0), d_k = q.shape(1), d_v = v.shape(1);
    s.keep = o.keep;
    s.first_query = o.keep == keep_mode::one_query ? o.query : 0;
    s.scale = static_cast<T>(o.scale_divisor ? *o.scale_divisor : std::sqrt(static_cast<double>(d_k)));
    s.mask_ = o.mask;
    s.bias_ = o.bias;
    s.masked_fill_ = o.masked_fill;
    s.times = {};

    const std::size_t rows = o.keep == keep_mode::one_query ? 1 : n_q;  // rows of output
    const std::size_t kept = o.keep == keep_mode::output_only ? 0 : rows;  // rows of scores kept
    s.scores_raw.resize({kept, n_k});
    s.weights.resize({kept, n_k});
    s.output.resize({rows, d_v});
    s.row_fully_masked.assign(rows, n_k == 0);
    if (rows == 0) return;
    if (n_k == 0) {  // no keys: every row is fully masked and the output is 0, as in the reference
        s.output.fill(T(0));
        return;
    }

    const auto& ops = kernels::active().ops<T>();
    blocks::size_packed_kv(ops, n_k, d_k, d_v, s.packed_k_, s.packed_v_);
    blocks::plan<T> p{ops, n_q, n_k, d_k, d_v, q.data(), d_k, s.packed_k_.data(), s.packed_v_.data(), {}};
    p.in.inv_scale = T(1) / s.scale;
    p.in.fill = o.masked_fill;
    p.bias = o.bias ? o.bias->data() : nullptr;
    p.attend = o.mask ? o.mask->data() : nullptr;
    if (blocks::v_in_place(ops, d_v)) p.v = v.data(), p.ldv = d_v;
    const std::size_t pack_tasks = kernels::strips(n_k, blocks::key_block);
    auto pack_only = [&](std::size_t task) {
        blocks::pack_kv_task(ops, task, n_k, d_k, d_v, k.data(), d_k, v.data(), d_v, s.packed_k_.data(),
                             s.packed_v_.data());
    };
    blocks::times total;
    if (s.slot_scratch_.empty()) s.slot_scratch_.resize(1);

    if (o.keep == keep_mode::one_query) {
        for (std::size_t task = 0; task < pack_tasks; ++task) pack_only(task);
        unsigned char flag = 0;
        blocks::kept_block(p, o.query, 1, s.scores_raw.data(), s.weights.data(), s.output.data(), d_v, &flag, total);
        s.row_fully_masked[0] = flag != 0;
        s.times = {total.scores, total.softmax, total.output};
        return;
    }

    const unsigned threads = std::min<unsigned>(o.threads > 0 ? o.threads : 1, max_slots);
    const std::size_t block = choose_block_rows(o, ops.mr, n_q, n_k, threads);
    const std::size_t n_blocks = (n_q + block - 1) / block;
    const bool parallel = threads > 1 && n_blocks > 1 && n_q * n_k >= parallel_cells;
    const std::size_t slots = parallel ? threads : 1;
    if (s.slot_scratch_.size() < slots + 1) s.slot_scratch_.resize(slots + 1);
    s.flags_.assign(n_q, 0);
    const bool wide = whole_rows(o, n_k);
    // Short queries: keep all splits the scores by keys on several threads (same bits);
    // output only splits every pass by keys, on any thread count (flash-decoding).
    const bool by_keys = parallel && o.keep == keep_mode::all_stages && split_by_keys(n_q, n_k);
    const bool flash = wide && split_by_keys(n_q, n_k) && n_q * n_k >= parallel_cells;
    const std::size_t part_stride = n_q * (3 + d_v);  // flash: per key block [3, n_q] then [n_q, d_v]
    if (flash) s.slot_scratch_[slots].resize(pack_tasks * part_stride);
    T* parts = s.slot_scratch_[slots].data();
    std::array<blocks::times, max_slots> per_slot{};
    auto pack = [&](std::size_t task, std::size_t slot) {
        pack_only(task);
        const std::size_t j0 = task * blocks::key_block, kv = std::min(blocks::key_block, n_k - j0);
        if (by_keys) blocks::key_block_scores(p, j0, kv, s.scores_raw.data(), per_slot[slot]);
        if (flash) {
            auto& scr = s.slot_scratch_[slot];
            scr.resize(n_q * blocks::key_block);
            blocks::key_block_partial(p, j0, kv, scr.data(), parts + task * part_stride, per_slot[slot]);
        }
    };

    // One block: touches only its own rows (and its thread's scratch).
    auto run_block = [&](std::size_t blk, std::size_t slot, blocks::times& t) {
        const std::size_t r0 = blk * block, b = std::min(block, n_q - r0);
        if (flash) {
            blocks::merge_key_blocks(p, r0, b, static_cast<const T*>(parts), pack_tasks, part_stride,
                                     s.output.data() + r0 * d_v, d_v, s.flags_.data() + r0);
        } else if (by_keys) {
            blocks::kept_block_after_scores(p, r0, b, s.scores_raw.data() + r0 * n_k, s.weights.data() + r0 * n_k,
                                            s.output.data() + r0 * d_v, d_v, s.flags_.data() + r0, t);
        } else if (wide) {  // the keep-all block with scores and weights in one scratch [b, n_k], in place
            auto& scr = s.slot_scratch_[slot];
            scr.resize(b * n_k);
            blocks::kept_block(p, r0, b, scr.data(), scr.data(), s.output.data() + r0 * d_v, d_v, s.flags_.data() + r0, t);
        } else if (o.keep == keep_mode::output_only)
            blocks::fused_block(p, r0, b, s.output.data() + r0 * d_v, d_v, s.flags_.data() + r0, static_cast<T*>(nullptr),
                                s.slot_scratch_[slot], t);
        else
            blocks::kept_block(p, r0, b, s.scores_raw.data() + r0 * n_k, s.weights.data() + r0 * n_k,
                               s.output.data() + r0 * d_v, d_v, s.flags_.data() + r0, t);
    };

    blocks::run_pack_then_blocks(static_cast<unsigned>(slots), pack_tasks, n_blocks, pack,
                                 [&](std::size_t blk, std::size_t slot) { run_block(blk, slot, per_slot[slot]); });
    for (const auto& t : per_slot) {
        total.scores += t.scores;
        total.softmax += t.softmax;
        total.output += t.output;
    }
    s.times = {total.scores, total.softmax, total.output};
    for (std::size_t i = 0; i < n_q; ++i) s.row_fully_masked[i] = s.flags_[i] != 0;
}

template <class T>
attention_steps to_attention_steps(const fast_steps<T>& s, const fast_matrix<T>& q, const fast_matrix<T>& k,
                                   const fast_matrix<T>& v) {
    if (s.keep != keep_mode::all_stages)
        throw internal_error("to_attention_steps needs a call that kept all stages");
    attention_steps r;
    r.q = xt::cast<double>(q);
    r.k = xt::cast<double>(k);
    r.v = xt::cast<double>(v);
    r.scale = static_cast<double>(s.scale);
    r.scores_raw = xt::cast<double>(s.scores_raw);
    r.scores_scaled = xt::cast<double>(s.materialise_scaled());
    r.attend = s.mask() ? *s.mask() : bool_matrix(xt::ones<bool>({s.rows(), s.n_k()}));
    r.scores_masked = xt::cast<double>(s.materialise_masked());
    r.weights = xt::cast<double>(s.weights);
    r.output = xt::cast<double>(s.output);
    r.row_fully_masked = s.row_fully_masked;
    return r;
}

template class fast_steps<float>;
template class fast_steps<double>;
template void fast_attention<float>(const fast_matrix<float>&, const fast_matrix<float>&, const fast_matrix<float>&,
                                    fast_steps<float>&, const fast_options<float>&);
template void fast_attention<double>(const fast_matrix<double>&, const fast_matrix<double>&,
                                     const fast_matrix<double>&, fast_steps<double>&, const fast_options<double>&);
template attention_steps to_attention_steps<float>(const fast_steps<float>&, const fast_matrix<float>&,
                                                   const fast_matrix<float>&, const fast_matrix<float>&);
template attention_steps to_attention_steps<double>(const fast_steps<double>&, const fast_matrix<double>&,
                                                    const fast_matrix<double>&, const fast_matrix<double>&);

}  // namespace attn
