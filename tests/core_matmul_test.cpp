// tests/core_matmul_test.cpp — attn::matmul (core/matmul.hpp) on each kernel set the CPU
// runs (core/kernels.hpp: generic, AVX2 + FMA, AVX-512; a set the CPU lacks is clamped
// to the best it has, so nothing runs an instruction it does not know) against a plain
// triple loop in long double: odd sizes that cut tiles, both transposes, leading
// dimensions wider than the matrices, alpha and beta; beta = 0 never reads C; and the
// bits of C never change with the number of threads.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/kernels.hpp"
#include "core/matmul.hpp"
#include "support/lcg.hpp"

using namespace attn;
using attn::testing::lcg;

namespace {

// One product's operands, stored with padded leading dimensions.
template <class T>
struct problem {
    bool ta, tb;
    std::size_t m, n, k, lda, ldb, ldc;
    std::vector<T> a, b, c;  // a [m or k, lda], b [k or n, ldb], c [m, ldc]
    problem(bool ta_, bool tb_, std::size_t m_, std::size_t n_, std::size_t k_, std::uint64_t seed)
        : ta(ta_), tb(tb_), m(m_), n(n_), k(k_), lda((ta_ ? m_ : k_) + 3), ldb((tb_ ? k_ : n_) + 1), ldc(n_ + 2) {
        lcg g{seed};
        a.resize((ta ? k : m) * lda);
        b.resize((tb ? n : k) * ldb);
        c.resize(m * ldc);
        for (auto& x : a) x = T(g.next());
        for (auto& x : b) x = T(g.next());
        for (auto& x : c) x = T(g.next());
    }
    T at_a(std::size_t i, std::size_t p) const { return ta ? a[p * lda + i] : a[i * lda + p]; }
    T at_b(std::size_t p, std::size_t j) const { return tb ? b[j * ldb + p] : b[p * ldb + j]; }
    void run(T alpha, T beta, std::vector<T>& out) const {
        out = c;
        matmul(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, out.data(), ldc);
    }
};

// max |C − reference| over max |reference|, where the reference is the triple loop in
// long double; the padding columns of C must be untouched.
template <class T>
double relative_error(const problem<T>& p, T alpha, T beta, const std::vector<T>& got) {
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < p.m; ++i) {
        for (std::size_t j = 0; j < p.n; ++j) {
            long double s = 0;
            for (std::size_t q = 0; q < p.k; ++q) s += (long double)p.at_a(i, q) * p.at_b(q, j);
            const long double ref = alpha * s + (beta == T(0) ? 0.0L : (long double)beta * p.c[i * p.ldc + j]);
            worst = std::max(worst, double(std::fabs((long double)got[i * p.ldc + j] - ref)));
            scale = std::max(scale, double(std::fabs(ref)));
        }
        for (std::size_t j = p.n; j < p.ldc; ++j)
            if (std::memcmp(&got[i * p.ldc + j], &p.c[i * p.ldc + j], sizeof(T)) != 0) return HUGE_VAL;
    }
    return worst / std::max(scale, 1e-300);
}

// Restores the CPU's own kernel set and the default threads when a test ends.
struct kernel_guard {
    ~kernel_guard() {
        kernels::force(kernels::best_supported());
        set_matmul_threads(0);
    }
};

}  // namespace

TEMPLATE_TEST_CASE("matmul equals the triple loop on every kernel set, transposes, odd sizes, alpha and beta",
                   "[core][matmul]", float, double) {
    const kernel_guard guard;
    const auto wanted = GENERATE(kernels::isa::generic, kernels::isa::avx2, kernels::isa::avx512);
    const auto& set = kernels::force(wanted);
    INFO("kernel set " << set.name);
    CHECK(static_cast<int>(set.which) <= static_cast<int>(kernels::best_supported()));
    const double tol = std::is_same<TestType, double>::value ? 1e-12 : 2e-5;
#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)  // the sanitizer build: fewer sizes, still cutting tiles
    const std::size_t ms[] = {1, 7, 13}, ns[] = {1, 9, 33}, ks[] = {1, 5, 300};
#else
    const std::size_t ms[] = {1, 7, 13, 100}, ns[] = {1, 9, 33, 70}, ks[] = {1, 5, 300, 600};
#endif
    std::uint64_t seed = 1;
    std::vector<TestType> out;
    for (bool ta : {false, true})
        for (bool tb : {false, true})
            for (std::size_t m : ms)
                for (std::size_t n : ns)
                    for (std::size_t k : ks) {
                        const problem<TestType> p(ta, tb, m, n, k, seed++);
                        const TestType alpha = TestType(seed % 3 == 0 ? 1.0 : -0.75);
                        const TestType beta = TestType(seed % 4 == 0 ? 0.0 : seed % 4 == 1 ? 1.0 : 0.5);
                        p.run(alpha, beta, out);
                        const double err = relative_error(p, alpha, beta, out);
                        INFO("trans_a " << ta << " trans_b " << tb << " m " << m << " n " << n << " k " << k
                                        << " alpha " << alpha << " beta " << beta);
                        if (!(err <= tol)) CHECK(err <= tol);  // one assertion per failure, not per product
                    }
}

TEST_CASE("matmul with beta 0 never reads C and with k 0 scales C by beta", "[core][matmul]") {
    problem<double> p(false, false, 9, 17, 40, 7);
    for (std::size_t i = 0; i < p.m; ++i)
        for (std::size_t j = 0; j < p.n; ++j) p.c[i * p.ldc + j] = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> out;
    p.run(2.0, 0.0, out);
    CHECK(relative_error(p, 2.0, 0.0, out) <= 1e-12);

    problem<float> z(false, true, 5, 6, 0, 8);
    std::vector<float> c = z.c;
    matmul(false, true, 5, 6, 0, 1.0f, z.a.data(), z.lda, z.b.data(), z.ldb, -2.0f, c.data(), z.ldc);
    CHECK(c[2 * z.ldc + 3] == -2.0f * z.c[2 * z.ldc + 3]);
    matmul(false, true, 5, 6, 0, 1.0f, z.a.data(), z.lda, z.b.data(), z.ldb, 0.0f, c.data(), z.ldc);
    CHECK(c[4 * z.ldc + 5] == 0.0f);
}

TEMPLATE_TEST_CASE("matmul gives the same bits on 1, 2 and 3 threads", "[core][matmul][threads]", float, double) {
    const kernel_guard guard;
    // Tall (split by rows), wide (split by columns), both transposed, k over two blocks.
    const problem<TestType> shapes[] = {problem<TestType>(false, false, 131, 70, 300, 11),
                                        problem<TestType>(false, true, 10, 900, 130, 12),
                                        problem<TestType>(true, true, 77, 260, 520, 13)};
    for (const auto& p : shapes) {
        std::vector<TestType> one, two, three;
        set_matmul_threads(1);
        p.run(TestType(1.25), TestType(0.5), one);
        set_matmul_threads(2);
        p.run(TestType(1.25), TestType(0.5), two);
        set_matmul_threads(3);
        p.run(TestType(1.25), TestType(0.5), three);
        INFO("m " << p.m << " n " << p.n << " k " << p.k);
        CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(TestType)) == 0);
        CHECK(std::memcmp(one.data(), three.data(), one.size() * sizeof(TestType)) == 0);
        CHECK(relative_error(p, TestType(1.25), TestType(0.5), one) <= (sizeof(TestType) == 8 ? 1e-12 : 2e-5));
    }
}

TEMPLATE_TEST_CASE("matmul_packed with B packed once gives matmul's bits and the triple loop's values",
                   "[core][matmul]", float, double) {
    const kernel_guard guard;
    const auto wanted = GENERATE(kernels::isa::generic, kernels::isa::avx2, kernels::isa::avx512);
    INFO("kernel set " << kernels::force(wanted).name);
    // Row blocks of one product sharing a packed B (training's linear layers), A plain or
    // transposed, k over several of matmul's blocks (704 = 256 + 256 + 192), edge tiles.
    const problem<TestType> shapes[] = {problem<TestType>(false, false, 70, 144, 48, 21),
                                        problem<TestType>(false, true, 64, 48, 192, 22),
                                        problem<TestType>(true, false, 16, 33, 704, 23),
                                        problem<TestType>(true, true, 13, 9, 300, 24)};
    for (const auto& p : shapes) {
        INFO("trans_a " << p.ta << " trans_b " << p.tb << " m " << p.m << " n " << p.n << " k " << p.k);
        packed_matrix<TestType> packed;
        pack_once(packed, p.tb, p.k, p.n, p.b.data(), p.ldb);
        std::vector<TestType> want, got = p.c;
        p.run(TestType(1), TestType(1), want);
        const std::size_t half = p.m / 2;  // two row blocks, the way training calls it
        matmul_packed(p.ta, half, TestType(1), p.a.data(), p.lda, packed, TestType(1), got.data(), p.ldc);
        matmul_packed(p.ta, p.m - half, TestType(1), p.ta ? p.a.data() + half : p.a.data() + half * p.lda, p.lda,
                      packed, TestType(1), got.data() + half * p.ldc, p.ldc);
        CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(TestType)) == 0);
        CHECK(relative_error(p, TestType(1), TestType(1), got) <= (sizeof(TestType) == 8 ? 1e-12 : 2e-5));
    }
}

TEMPLATE_TEST_CASE("matmul_row and matmul_row_packed give matmul's bits for one row on every kernel set",
                   "[core][matmul]", float, double) {
    const kernel_guard guard;
    const auto wanted = GENERATE(kernels::isa::generic, kernels::isa::avx2, kernels::isa::avx512);
    INFO("kernel set " << kernels::force(wanted).name);
    // n cutting a vector and a group (9, 70, 300), exactly a group (row_group), k over
    // several of matmul's blocks of 256 (600, 704); alpha 1 and not; beta 0, 1 and 0.5.
    const std::size_t g = row_group<TestType>();
    const std::size_t ns[] = {1, 9, 70, g, 300}, ks[] = {1, 8, 64, 600, 704};
    std::uint64_t seed = 100;
    for (std::size_t n : ns)
        for (std::size_t k : ks)
            for (bool tb : {false, true}) {
                const problem<TestType> p(false, tb, 1, n, k, seed++);
                const TestType alpha = TestType(seed % 2 == 0 ? 1.0 : 0.125), beta = TestType(seed % 3 == 0 ? 0.0 : seed % 3 == 1 ? 1.0 : 0.5);
                INFO("n " << n << " k " << k << " trans_b " << tb << " alpha " << alpha << " beta " << beta);
                std::vector<TestType> want;
                p.run(alpha, beta, want);
                std::vector<TestType> packed(row_packed_size<TestType>(k, n));  // [groups, k, group]
                const row_packed_matrix<TestType> pb = pack_rows(packed.data(), tb, k, n, p.b.data(), p.ldb);
                REQUIRE(pb.groups() == (n + g - 1) / g);
                std::vector<TestType> got = p.c;
                const std::size_t half = pb.groups() / 2;  // two ranges of groups, as threads share them
                matmul_row_packed(pb, 0, half, alpha, p.a.data(), beta, got.data());
                matmul_row_packed(pb, half, pb.groups(), alpha, p.a.data(), beta, got.data());
                CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(TestType)) == 0);
                if (tb) continue;
                std::vector<TestType> direct = p.c;  // B read in place, its row stride wider than n
                matmul_row(n, k, alpha, p.a.data(), p.b.data(), p.ldb, beta, direct.data());
                CHECK(std::memcmp(want.data(), direct.data(), want.size() * sizeof(TestType)) == 0);
                CHECK(relative_error(p, alpha, beta, direct) <= (sizeof(TestType) == 8 ? 1e-12 : 2e-5));
            }
}
