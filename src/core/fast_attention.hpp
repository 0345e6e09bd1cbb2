// core/fast_attention.hpp — the fast forward pass for real sizes, in float or double.
//
// Same stages as scaled_dot_product_attention (core/attention.hpp), on attn's own
// kernels (core/kernels.hpp: register-blocked products and a vectorised softmax, the
// widest set the CPU runs, whatever the BLAS build detects). K and V are packed once
// per call; blocks of query rows are spread over a small thread pool. Two stages are
// cheap functions of another and stay lazy:
//   scores_scaled = scores_raw / scale              (scores_scaled(), scaled(i, j))
//   scores_masked = scaled + bias, fill if blocked  (masked(i, j), materialise_masked())
// The tracer evaluates them when it prints; every other stage is a concrete matrix.
//
// keep_mode says what to materialise:
//   all_stages  (default) scores_raw and weights [n_q, n_k], output [n_q, d_v]: per
//               block of query rows, scores into the kept matrix, the softmax into the
//               kept weights, then weights · V, in one sweep
//   output_only output [n_q, d_v]: no [n_q, n_k] matrix ever exists. Up to
//               whole_row_keys keys: per block of query rows, the keep-all sweep with
//               scores and weights in one per-thread scratch [rows, n_k] (≤ 1 MiB),
//               the output bit for bit the keep-all output; longer rows: fused, the
//               online softmax of lesson 16 over blocks of 256 keys (core/tiled.hpp
//               teaches it), only [rows, 256] per thread. Short queries (n_q < 128,
//               n_k ≥ 4 n_q, 16 Ki cells or more): split by key blocks as
//               flash-decoding does — each block's softmax and P V for every row
//               ([n_q, 256] per thread), then the blocks' (m, l, o) merged per row
//   one_query   row `query` only: scores_raw, weights [1, n_k], output [1, d_v] —
//               a one-token trace at n = 4096 never builds an n × n matrix
// Past whole_row_keys, and for short queries, output_only equals all_stages up to
// rounding (the online softmax rescales), not bit for bit. No result depends on the number of threads or the block size.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "core/attention.hpp"
#include "core/types.hpp"

namespace attn {

template <class T>
using fast_matrix = xt::xtensor<T, 2>;  // [rows, cols], row-major

enum class keep_mode { all_stages, output_only, one_query };

template <class T>
struct fast_options {
    keep_mode keep = keep_mode::all_stages;
    std::size_t query = 0;                 // the query row that one_query keeps
    const bool_matrix* mask = nullptr;     // [n_q, n_k] true = attend; not owned, must outlive the steps
    const fast_matrix<T>* bias = nullptr;  // [n_q, n_k] added to the scaled scores; not owned
    T masked_fill = -std::numeric_limits<T>::infinity();
    std::optional<double> scale_divisor;   // absent = √d_k
    // Threads, the caller included. 1: blocks run in turn on the caller. > 1: packing
    // K and V, then blocks of query rows, are spread over the shared pool
    // (core/fast_parallel.hpp), each thread running whole blocks. The numbers are the
    // same either way, bit for bit.
    unsigned threads = 1;
    std::size_t block_rows = 0;            // query rows per block; 0 = chosen from n_k
    // output_only: rows of at most this many keys are computed whole (above); longer
    // rows by the online softmax. 0 = always online (tests).
    std::size_t whole_row_keys = 4096;
};

template <class T>
class fast_steps;

// Checks shapes like scaled_dot_product_attention (shape_error naming both shapes)
// and fills `steps` per options.keep.
template <class T>
void fast_attention(const fast_matrix<T>& q, const fast_matrix<T>& k, const fast_matrix<T>& v,
                    fast_steps<T>& steps, const fast_options<T>& options = {});

// Stage times of the last call, in seconds (summed over blocks).
// (With threads > 1, thread-seconds: summed over threads too.)
struct fast_stage_times {
    double scores = 0;   // Q Kᵀ
    double softmax = 0;  // scale, bias, mask, softmax
    double output = 0;   // weights V
};

// The workspace and the kept stages of the last call. Reusing one object for calls
// of the same shape allocates nothing after the first call.
template <class T>
class fast_steps {
public:
    keep_mode keep = keep_mode::all_stages;
    std::size_t first_query = 0;  // query index of row 0 of the kept matrices
    T scale = 1;                  // the divisor used, √d_k unless overridden
    fast_matrix<T> scores_raw;    // [rows, n_k] rows = n_q (all_stages), 1 (one_query), 0 (output_only)
    fast_matrix<T> weights;       // [rows, n_k]
    fast_matrix<T> output;        // [n_q, d_v], or [1, d_v] for one_query
    std::vector<bool> row_fully_masked;  // [n_q], or [1] for one_query
    fast_stage_times times;

    std::size_t rows() const { return scores_raw.shape(0); }
    std::size_t n_k() const { return scores_raw.shape(1); }

    // Lazy stages. Row i is a row of the kept matrices (query first_query + i).
    auto scores_scaled() const { return scores_raw / scale; }  // xtensor expression [rows, n_k]
    T scaled(std::size_t i, std::size_t j) const { return scores_raw(i, j) / scale; }
    T masked(std::size_t i, std::size_t j) const;
    fast_matrix<T> materialise_scaled() const { return scores_scaled(); }
    fast_matrix<T> materialise_masked() const;

    // The mask and bias the last call used (null when absent) and the fill of blocked cells.
    const bool_matrix* mask() const { return mask_; }
    const fast_matrix<T>* bias() const { return bias_; }
    T masked_fill() const { return masked_fill_; }

private:
    template <class U>
    friend void fast_attention(const fast_matrix<U>&, const fast_matrix<U>&, const fast_matrix<U>&,
                               fast_steps<U>&, const fast_options<U>&);
    const bool_matrix* mask_ = nullptr;     // from the options of the last call
    const fast_matrix<T>* bias_ = nullptr;
    T masked_fill_ = 0;
    std::vector<T> packed_k_;               // Kᵀ as product strips [⌈n_k/nr⌉, d_k, nr]
    std::vector<T> packed_v_;               // V per block of 256 keys: [⌈n_k/256⌉, ⌈d_v/nr⌉, 256, nr] (empty: V read in place)
    std::vector<std::vector<T>> slot_scratch_;  // per thread: score block and online state of the fused forward
    std::vector<unsigned char> flags_;      // [n_q] fully-masked flags, one byte each (threads write them)
};

// The kept stages of an all_stages call as the reference struct (double, lazy
// stages materialised), for the tracer and for tests against the reference path.
template <class T>
attention_steps to_attention_steps(const fast_steps<T>& steps, const fast_matrix<T>& q, const fast_matrix<T>& k,
                                   const fast_matrix<T>& v);

}  // namespace attn
