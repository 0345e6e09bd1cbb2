// core/fast_fused.cpp — the model floor's fused attention (core/fast_fused.hpp): K and V
// packed once (the threads share the packing), then blocks of 4 register tiles of query
// rows, each thread pulling whole blocks (with the causal mask the last blocks cost most,
// so they are handed out one by one rather than split evenly).
#include "core/fast_fused.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/fast_blocks.hpp"
#include "core/kernels.hpp"

namespace attn {

// Named, not anonymous: the lambdas below capture these buffers, and GCC warns
// (-Wsubobject-linkage) when a lambda of an external function holds a file-local type
// in a unity build, where this file is not the main file.
namespace fast_fused_detail {

// Packed K and V of one thread's calls, kept between calls (pages cost on this VM).
template <class T>
struct fused_buffers {
    std::vector<T> packed_k, packed_v;
    std::vector<std::vector<T>> scratch;  // per slot
    std::vector<unsigned char> flags;     // [n_q]
};
template <class T>
fused_buffers<T>& buffers() {
    thread_local fused_buffers<T> b;
    return b;
}

}  // namespace fast_fused_detail

template <class T>
void fused_attention(std::size_t n_q, std::size_t n_k, std::size_t d_k, std::size_t d_v, const T* q, std::size_t ldq,
                     const T* k, std::size_t ldk, const T* v, std::size_t ldv, T* out, std::size_t ldo,
                     const fused_options<T>& o) {
    if (n_q == 0) return;
    const auto& ops = kernels::active().ops<T>();
    auto& buf = fast_fused_detail::buffers<T>();
    blocks::size_packed_kv(ops, n_k, d_k, d_v, buf.packed_k, buf.packed_v);
    blocks::plan<T> p{ops, n_q, n_k, d_k, d_v, q, ldq, buf.packed_k.data(), buf.packed_v.data(), {}};
    const double divisor = o.scale_divisor ? *o.scale_divisor : std::sqrt(static_cast<double>(d_k));
    p.in.inv_scale = static_cast<T>(1.0 / divisor);
    p.in.fill = -std::numeric_limits<T>::infinity();
    p.causal = o.causal;  // with n_k < n_q the first n_q − n_k rows see nothing (output 0)
    if (blocks::v_in_place(ops, d_v)) p.v = v, p.ldv = ldv;
    const std::size_t block = 4 * ops.mr, n_blocks = (n_q + block - 1) / block;
    const unsigned threads = o.threads > 1 && n_blocks > 1 ? o.threads : 1;
    if (buf.scratch.size() < threads) buf.scratch.resize(threads);
    buf.flags.assign(n_q, 0);
    auto pack = [&](std::size_t task, std::size_t) {
        blocks::pack_kv_task(ops, task, n_k, d_k, d_v, k, ldk, v, ldv, buf.packed_k.data(), buf.packed_v.data());
    };
    auto run_block = [&](std::size_t blk, std::size_t slot) {
        blocks::times t;
        const std::size_t r0 = blk * block, b = std::min(block, n_q - r0);
        blocks::fused_block(p, r0, b, out + r0 * ldo, ldo, buf.flags.data() + r0, o.lse ? o.lse + r0 : nullptr,
                            buf.scratch[slot], t);
    };
    blocks::run_pack_then_blocks(threads, kernels::strips(n_k, blocks::key_block), n_blocks, pack, run_block);
}

template void fused_attention<float>(std::size_t, std::size_t, std::size_t, std::size_t, const float*, std::size_t,
                                     const float*, std::size_t, const float*, std::size_t, float*, std::size_t,
                                     const fused_options<float>&);
template void fused_attention<double>(std::size_t, std::size_t, std::size_t, std::size_t, const double*, std::size_t,
                                      const double*, std::size_t, const double*, std::size_t, double*, std::size_t,
                                      const fused_options<double>&);

}  // namespace attn
