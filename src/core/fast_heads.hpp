// core/fast_heads.hpp — the fast forward of several heads in one call (core/fast_attention.hpp
// per head). Small heads on several threads run whole heads side by side, one thread
// per head at a time, instead of splitting each head's rows between the threads: a
// head of n = 512 is over in about 0.2 ms, and splitting it costs a hand-over and
// the packing shared across cores for each head. Each head's numbers are the bits
// fast_attention gives it on its own (no result depends on the thread count).
#pragma once

#include <cstddef>
#include <vector>

#include "core/fast_attention.hpp"

namespace attn {

// One head: its inputs and the workspace its kept stages go to (not owned).
template <class T>
struct fast_head {
    const fast_matrix<T>* q = nullptr;  // [n_q, d_k]
    const fast_matrix<T>* k = nullptr;  // [n_k, d_k]
    const fast_matrix<T>* v = nullptr;  // [n_k, d_v]
    fast_steps<T>* steps = nullptr;
};

// fast_attention(q, k, v, steps, options) for every head. With options.threads > 1,
// at least that many heads and at most 512 × 512 score cells a head, the heads are
// spread over the shared pool (core/fast_parallel.hpp), each head on one thread;
// otherwise they run in turn, each on options.threads threads. Shape errors are
// thrown as fast_attention throws them (checked for every head before any runs).
template <class T>
void fast_attention_heads(const std::vector<fast_head<T>>& heads, const fast_options<T>& options = {});

}  // namespace attn
