// core/fast_attention.cpp — the fast forward: per block of query rows, Q Kᵀ through
// BLAS into the kept scores, the fused softmax, weights V through BLAS; with a pool,
// each thread runs whole blocks.
// Blocks keep a block's scores in cache between the three steps.
#include "core/fast_attention.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include <cblas.h>
#include <xtensor/xview.hpp>

#include "core/fast_softmax.hpp"
#include "core/shape_check.hpp"
#include "core/shape_error.hpp"

namespace attn {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

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

// C [m, n] = A [m, kk] · B (Bᵀ when transpose_b) + beta · C, all row-major and contiguous.
void gemm(bool transpose_b, std::size_t m, std::size_t n, std::size_t kk, const float* a, const float* b, float beta,
          float* c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(kk), 1.0f, a, static_cast<int>(kk), b,
                static_cast<int>(transpose_b ? kk : n), beta, c, static_cast<int>(n));
}
void gemm(bool transpose_b, std::size_t m, std::size_t n, std::size_t kk, const double* a, const double* b,
          double beta, double* c) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(kk), 1.0, a, static_cast<int>(kk), b,
                static_cast<int>(transpose_b ? kk : n), beta, c, static_cast<int>(n));
}

// y [rows] = A [rows, cols] · x, or y [cols] = Aᵀ · x when transpose_a.
void gemv(bool transpose_a, std::size_t rows, std::size_t cols, const float* a, const float* x, float* y) {
    cblas_sgemv(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, static_cast<int>(rows),
                static_cast<int>(cols), 1.0f, a, static_cast<int>(cols), x, 1, 0.0f, y, 1);
}
void gemv(bool transpose_a, std::size_t rows, std::size_t cols, const double* a, const double* x, double* y) {
    cblas_dgemv(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans, static_cast<int>(rows),
                static_cast<int>(cols), 1.0, a, static_cast<int>(cols), x, 1, 0.0, y, 1);
}

// Query rows per block. Alone: about 1 MiB of scores per block, so a block is still
// in cache when the softmax and the second product read it. With a pool: about
// 512 KiB (one core's L2), and at least one block per thread. Not smaller: every
// block repacks all of K inside BLAS, which costs most when n_q is small (cross-attention).
template <class T>
std::size_t choose_block_rows(std::size_t requested, std::size_t n_q, std::size_t n_k, unsigned threads) {
    if (requested > 0) return requested;
    const std::size_t bytes = threads > 1 ? (std::size_t(1) << 19) : (std::size_t(1) << 20);
    std::size_t rows = bytes / (sizeof(T) * (n_k > 0 ? n_k : 1));
    if (threads > 1) rows = std::min(rows, (n_q + threads - 1) / threads);
    return std::max<std::size_t>(rows, 16);
}

// Below this many score cells a call runs on the caller alone: waking a worker
// costs more than it saves.
constexpr std::size_t parallel_cells = 64 * 1024;

// OpenBLAS at one thread for the lifetime of the guard (our threads call it
// concurrently, each with its own block), then back to what it was.
class blas_single_thread {
public:
    blas_single_thread() : before_(openblas_get_num_threads()) {
        if (before_ != 1) openblas_set_num_threads(1);
    }
    ~blas_single_thread() {
        if (before_ != 1) openblas_set_num_threads(before_);
    }
    blas_single_thread(const blas_single_thread&) = delete;
    blas_single_thread& operator=(const blas_single_thread&) = delete;

private:
    int before_;
};

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
    softmax_row_inputs<T> in;
    in.inv_scale = T(1) / s.scale;
    in.fill = o.masked_fill;

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

    if (o.keep == keep_mode::one_query) {
        const std::size_t qi = o.query;
        auto t0 = clock_type::now();
        gemv(false, n_k, d_k, k.data(), q.data() + qi * d_k, s.scores_raw.data());  // [n_k] K · q_i
        s.times.scores = seconds_since(t0);
        t0 = clock_type::now();
        in.bias = o.bias ? o.bias->data() + qi * n_k : nullptr;
        in.attend = o.mask ? o.mask->data() + qi * n_k : nullptr;
        s.row_fully_masked[0] = fast_softmax_row(s.scores_raw.data(), s.weights.data(), n_k, in);
        s.times.softmax = seconds_since(t0);
        t0 = clock_type::now();
        if (d_v > 0) gemv(true, n_k, d_v, v.data(), s.weights.data(), s.output.data());  // [d_v] Vᵀ · w_i
        s.times.output = seconds_since(t0);
        return;
    }

    const unsigned threads = o.threads > 0 ? o.threads : 1;
    const std::size_t block = choose_block_rows<T>(o.block_rows, n_q, n_k, threads);
    const std::size_t n_blocks = (n_q + block - 1) / block;
    const bool parallel = threads > 1 && n_blocks > 1 && n_q * n_k >= parallel_cells;
    const std::size_t slots = parallel ? threads : 1;
    if (o.keep == keep_mode::output_only) s.scratch_.resize({slots * std::min(block, n_q), n_k});
    s.flags_.assign(n_q, 0);

    // One block: its scores, softmax and output rows; touches only its own rows.
    auto run_block = [&](std::size_t blk, std::size_t slot, fast_stage_times& t) {
        const std::size_t r0 = blk * block, b = std::min(block, n_q - r0);
        T* raw = o.keep == keep_mode::output_only ? s.scratch_.data() + slot * block * n_k
                                                  : s.scores_raw.data() + r0 * n_k;
        T* w = o.keep == keep_mode::output_only ? raw : s.weights.data() + r0 * n_k;
        auto t0 = clock_type::now();
        // OpenBLAS clears C for beta = 0 with a scalar loop that costs up to a quarter
        // of this product at d = 64; a vectorised fill and beta = 1 give the same C.
        std::fill_n(raw, b * n_k, T(0));
        gemm(true, b, n_k, d_k, q.data() + r0 * d_k, k.data(), T(1), raw);  // [b, n_k] Q_block Kᵀ
        auto t1 = clock_type::now();
        softmax_row_inputs<T> row_in = in;
        for (std::size_t i = 0; i < b; ++i) {
            const std::size_t qi = r0 + i;
            row_in.bias = o.bias ? o.bias->data() + qi * n_k : nullptr;
            row_in.attend = o.mask ? o.mask->data() + qi * n_k : nullptr;
            s.flags_[qi] = fast_softmax_row(raw + i * n_k, w + i * n_k, n_k, row_in);
        }
        auto t2 = clock_type::now();
        if (d_v > 0) gemm(false, b, d_v, n_k, w, v.data(), T(0), s.output.data() + r0 * d_v);  // [b, d_v] W_block V
        auto t3 = clock_type::now();
        t.scores += std::chrono::duration<double>(t1 - t0).count();
        t.softmax += std::chrono::duration<double>(t2 - t1).count();
        t.output += std::chrono::duration<double>(t3 - t2).count();
    };

    if (!parallel) {
        for (std::size_t blk = 0; blk < n_blocks; ++blk) run_block(blk, 0, s.times);
    } else {
        // Each thread pulls whole blocks (no barrier between stages); BLAS runs
        // single-threaded inside, so the threads are ours and only ours.
        if (!s.pool_ || s.pool_->threads() != threads) s.pool_ = std::make_unique<row_pool>(threads);
        const blas_single_thread blas_guard;
        std::atomic<std::size_t> next{0};
        std::vector<fast_stage_times> per_slot(slots);
        s.pool_->run(slots, [&](std::size_t begin, std::size_t end) {
            for (std::size_t slot = begin; slot < end; ++slot)
                for (std::size_t blk = next++; blk < n_blocks; blk = next++) run_block(blk, slot, per_slot[slot]);
        });
        for (const auto& t : per_slot) {
            s.times.scores += t.scores;
            s.times.softmax += t.softmax;
            s.times.output += t.output;
        }
    }
    for (std::size_t i = 0; i < n_q; ++i) s.row_fully_masked[i] = s.flags_[i] != 0;
}

template <class T>
attention_steps to_attention_steps(const fast_steps<T>& s, const fast_matrix<T>& q, const fast_matrix<T>& k,
                                   const fast_matrix<T>& v) {
    if (s.keep != keep_mode::all_stages)
        throw std::invalid_argument("to_attention_steps needs a call that kept all stages");
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
