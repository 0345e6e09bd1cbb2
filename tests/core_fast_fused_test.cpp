// tests/core_fast_fused_test.cpp — the model floor's fused attention (core/fast_fused.hpp)
// against the reference path (core/attention.hpp) with the causal mask written out by
// hand: heads read in place from a wider [T, 3·C]-style buffer, n_k > n_q (a KV cache),
// n_k < n_q (rows that see nothing), every kernel set the CPU runs, the log-sum-exp per
// row, and the same bits on any thread count.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/attention.hpp"
#include "core/fast_fused.hpp"
#include "core/kernels.hpp"
#include "support/lcg.hpp"

using namespace attn;
using attn::testing::lcg;

namespace {

// One head's Q, K, V inside buffers three times wider than a head (as in a QKV buffer).
template <class T>
struct strided_head {
    std::size_t n_q, n_k, d, ld;
    std::vector<T> q, kv;  // q [n_q, ld], kv [n_k, ld]: K at column d, V at column 2d
    strided_head(std::size_t nq, std::size_t nk, std::size_t d_, std::uint64_t seed)
        : n_q(nq), n_k(nk), d(d_), ld(3 * d_), q(nq * 3 * d_), kv(nk * 3 * d_) {
        lcg g{seed};
        for (auto& x : q) x = T(g.next());
        for (auto& x : kv) x = T(g.next());
    }
    matrix dense(const std::vector<T>& buf, std::size_t rows, std::size_t col0) const {
        matrix m({rows, d});  // [rows, d]
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < d; ++j) m(i, j) = double(buf[i * ld + col0 + j]);
        return m;
    }
    std::vector<T> run(bool causal, unsigned threads, std::vector<T>* lse = nullptr) const {
        std::vector<T> out(n_q * d);  // [n_q, d]
        fused_options<T> o;
        o.causal = causal;
        o.threads = threads;
        if (lse) {
            lse->assign(n_q, T(0));
            o.lse = lse->data();
        }
        fused_attention(n_q, n_k, d, d, q.data(), ld, kv.data() + d, ld, kv.data() + 2 * d, ld, out.data(), d, o);
        return out;
    }
};

}  // namespace

TEMPLATE_TEST_CASE("the fused attention equals the reference path with a causal mask written out",
                   "[core][fused]", float, double) {
    const double tol = std::is_same<TestType, double>::value ? 1e-12 : 1e-5;
    const auto wanted = GENERATE(kernels::isa::generic, kernels::isa::avx2, kernels::isa::avx512);
    struct restore {
        ~restore() { kernels::force(kernels::best_supported()); }
    } guard;
    INFO("kernel set " << kernels::force(wanted).name);
    // Square, a KV cache (n_k > n_q, three key blocks), and n_k < n_q (the first rows see nothing).
    const auto shape = GENERATE(std::make_pair(std::size_t(70), std::size_t(70)),
                                std::make_pair(std::size_t(20), std::size_t(600)),
                                std::make_pair(std::size_t(300), std::size_t(290)));
    const bool causal = GENERATE(true, false);
    const strided_head<TestType> h(shape.first, shape.second, 24, shape.first * 7 + shape.second);
    attention_options ro;
    if (causal) {
        bool_matrix mask({h.n_q, h.n_k});  // [n_q, n_k] key j visible to query i when j ≤ i + n_k − n_q
        for (std::size_t i = 0; i < h.n_q; ++i)
            for (std::size_t j = 0; j < h.n_k; ++j) mask(i, j) = double(j) <= double(i) + double(h.n_k) - double(h.n_q);
        ro.mask = mask;
    }
    const attention_steps ref =
        scaled_dot_product_attention(h.dense(h.q, h.n_q, 0), h.dense(h.kv, h.n_k, h.d), h.dense(h.kv, h.n_k, 2 * h.d), ro);
    std::vector<TestType> lse;
    const std::vector<TestType> out = h.run(causal, 2, &lse);
    double worst = 0, scale = 0, worst_lse = 0;
    for (std::size_t i = 0; i < h.n_q; ++i) {
        for (std::size_t j = 0; j < h.d; ++j) {
            worst = std::max(worst, std::abs(double(out[i * h.d + j]) - ref.output(i, j)));
            scale = std::max(scale, std::abs(ref.output(i, j)));
        }
        double m = -HUGE_VAL, l = 0;  // log Σ e^(scaled score) over the visible keys, from the reference's scores
        for (std::size_t j = 0; j < h.n_k; ++j) m = std::max(m, ref.scores_masked(i, j));
        for (std::size_t j = 0; j < h.n_k; ++j) l += std::isinf(m) ? 0.0 : std::exp(ref.scores_masked(i, j) - m);
        const double want = std::isinf(m) ? -HUGE_VAL : m + std::log(l);
        worst_lse = std::max(worst_lse, std::isinf(want) ? (double(lse[i]) == want ? 0.0 : HUGE_VAL)
                                                          : std::abs(double(lse[i]) - want));
    }
    INFO("n_q " << h.n_q << " n_k " << h.n_k << " causal " << causal);
    CHECK(worst <= tol * scale);
    CHECK(worst_lse <= tol * 10);
    for (TestType x : out) CHECK_FALSE(std::isnan(x));
}

TEST_CASE("the fused attention gives the same bits on 1, 2 and 3 threads", "[core][fused][threads]") {
    const strided_head<float> h(333, 333, 32, 4);
    const auto one = h.run(true, 1), two = h.run(true, 2), three = h.run(true, 3);
    CHECK(one == two);
    CHECK(one == three);
}
