// core/fast_softmax.hpp — the vectorised, fused softmax of one score row, used by
// the fast forward (core/fast_attention.hpp). One row at a time so the row stays in
// L1 across the three passes: (1) scale, bias, mask and row max; (2) exp of the
// max-shifted scores and their sum; (3) multiply by 1/sum.
#pragma once

#include <cstddef>

namespace attn {

// What the softmax of one row reads besides the raw scores. bias and attend are
// rows of [n_q, n_k] inputs or null when absent.
template <class T>
struct softmax_row_inputs {
    T inv_scale = 1;              // 1 / divisor: the scaled score is raw · inv_scale
    const T* bias = nullptr;      // [n_k] added after scaling
    const bool* attend = nullptr; // [n_k] true = attend; blocked cells become fill
    T fill = 0;                   // what a blocked cell becomes (−inf or a constant)
};

// raw [n] → weights [n] (weights may alias raw). Returns true when the row has no
// distribution (no visible key, or no finite score): then weights are all 0, never NaN.
template <class T>
bool fast_softmax_row(const T* raw, T* weights, std::size_t n, const softmax_row_inputs<T>& in);

// e^x for x ≤ 0 over n values in place (−inf → 0; results below the smallest
// normal flush to 0). Exposed for tests that check it against std::exp.
template <class T>
void fast_exp_nonpositive(T* x, std::size_t n);

}  // namespace attn
