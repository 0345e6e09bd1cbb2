// core/fast_softmax.cpp — the fused row softmax on xsimd batches.
//
// exp: the softmax only ever needs e^x for x = score − row max ≤ 0, so the kernel
// is a Cody–Waite range reduction x = k·ln2 + r (|r| ≤ ln2/2), a Taylor polynomial
// for e^r (degree 6 for float, degree 12 for double: a few ulp, measured in tests),
// and 2^k built directly in the exponent bits. k ≥ −126 (float) / −1022 (double)
// because x is clamped first; below that the result is 0 (blocked cells are −inf).
// The ln2 split (hi has trailing zero bits) keeps the reduction exact without FMA,
// so the main build (-ffp-contract=off, SSE2) and the bench build (-march=native)
// give the same accuracy.
#include "core/fast_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <xsimd/xsimd.hpp>

namespace attn {

namespace {

template <class T>
struct exp_constants;

template <>
struct exp_constants<float> {
    using int_type = std::int32_t;
    static constexpr float lowest = -87.0f;  // e^−87 ≈ 1.6e-38: still a normal float
    static constexpr float log2e = 1.44269504088896341f;
    static constexpr float ln2_hi = 0.693359375f;
    static constexpr float ln2_lo = -2.12194440e-4f;
    static constexpr int mantissa_bits = 23;
    static constexpr int bias = 127;
    static constexpr int degree = 6;
};

template <>
struct exp_constants<double> {
    using int_type = std::int64_t;
    static constexpr double lowest = -708.0;  // e^−708 ≈ 3.3e-308: still a normal double
    static constexpr double log2e = 1.44269504088896340736;
    static constexpr double ln2_hi = 6.93147180369123816490e-01;
    static constexpr double ln2_lo = 1.90821492927058770002e-10;
    static constexpr int mantissa_bits = 52;
    static constexpr int bias = 1023;
    static constexpr int degree = 12;
};

// 1/i! for i = 0 … 12.
constexpr double inverse_factorial[13] = {1.0,
                                          1.0,
                                          1.0 / 2,
                                          1.0 / 6,
                                          1.0 / 24,
                                          1.0 / 120,
                                          1.0 / 720,
                                          1.0 / 5040,
                                          1.0 / 40320,
                                          1.0 / 362880,
                                          1.0 / 3628800,
                                          1.0 / 39916800,
                                          1.0 / 479001600};

// Σ r^i/i! for i ≤ degree, by Estrin's scheme: the terms are paired (a + b·r) and
// combined with r², r⁴, r⁸, so the dependency chain is ~5 operations deep instead
// of 12 — the exp loop is latency-bound otherwise.
template <class T>
inline xsimd::batch<T> taylor_exp(const xsimd::batch<T>& r) {
    using batch = xsimd::batch<T>;
    auto c = [](int i) { return batch(static_cast<T>(inverse_factorial[i])); };
    const batch r2 = r * r;
    const batch r4 = r2 * r2;
    if constexpr (exp_constants<T>::degree == 6) {
        const batch p01 = xsimd::fma(c(1), r, c(0));
        const batch p23 = xsimd::fma(c(3), r, c(2));
        const batch p45 = xsimd::fma(c(5), r, c(4));
        const batch p03 = xsimd::fma(p23, r2, p01);
        const batch p46 = xsimd::fma(c(6), r2, p45);
        return xsimd::fma(p46, r4, p03);
    } else {
        const batch r8 = r4 * r4;
        const batch p01 = xsimd::fma(c(1), r, c(0));
        const batch p23 = xsimd::fma(c(3), r, c(2));
        const batch p45 = xsimd::fma(c(5), r, c(4));
        const batch p67 = xsimd::fma(c(7), r, c(6));
        const batch p89 = xsimd::fma(c(9), r, c(8));
        const batch p1011 = xsimd::fma(c(11), r, c(10));
        const batch p03 = xsimd::fma(p23, r2, p01);
        const batch p47 = xsimd::fma(p67, r2, p45);
        const batch p811 = xsimd::fma(p1011, r2, p89);
        const batch p07 = xsimd::fma(p47, r4, p03);
        const batch p812 = xsimd::fma(c(12), r4, p811);
        return xsimd::fma(p812, r8, p07);
    }
}

// e^x for a batch of x ≤ 0 (x may be −inf).
template <class T>
inline xsimd::batch<T> exp_nonpositive(const xsimd::batch<T>& x) {
    using C = exp_constants<T>;
    using batch = xsimd::batch<T>;
    using ibatch = xsimd::batch<typename C::int_type>;
    const auto underflow = x < batch(C::lowest);
    const batch xc = xsimd::max(x, batch(C::lowest));
    const batch k = xsimd::nearbyint(xc * batch(C::log2e));
    batch r = xsimd::fnma(k, batch(C::ln2_hi), xc);
    r = xsimd::fnma(k, batch(C::ln2_lo), r);
    const batch p = taylor_exp(r);
    // 2^k: k is an exact small integer in floating point; adding 1.5·2^m puts it in
    // the low mantissa bits, from where it moves into the exponent field.
    const T magic = static_cast<T>(1.5) * static_cast<T>(std::uint64_t(1) << C::mantissa_bits);
    const ibatch k_bits = xsimd::bitwise_cast<ibatch>(k + batch(magic)) - xsimd::bitwise_cast<ibatch>(batch(magic));
    const batch pow2 = xsimd::bitwise_cast<batch>((k_bits + ibatch(C::bias)) << C::mantissa_bits);
    return xsimd::select(underflow, batch(T(0)), p * pow2);
}

template <class T>
inline T exp_nonpositive_scalar(T x) {
    return x < exp_constants<T>::lowest ? T(0) : std::exp(x);
}

// row[j] *= factor for the whole row; the last pass of both softmax forms.
template <class T>
void scale_row(T* row, std::size_t n, T factor) {
    using batch = xsimd::batch<T>;
    constexpr std::size_t w = batch::size;
    const batch vf(factor);
    std::size_t j = 0;
    for (; j + w <= n; j += w) (batch::load_unaligned(row + j) * vf).store_unaligned(row + j);
    for (; j < n; ++j) row[j] *= factor;
}

}  // namespace

template <class T>
void fast_exp_nonpositive(T* x, std::size_t n) {
    using batch = xsimd::batch<T>;
    constexpr std::size_t w = batch::size;
    std::size_t j = 0;
    for (; j + w <= n; j += w) exp_nonpositive(batch::load_unaligned(x + j)).store_unaligned(x + j);
    for (; j < n; ++j) x[j] = exp_nonpositive_scalar(x[j]);
}

namespace {

// The common case, no mask and no bias, with a positive scale: max over the raw
// row (x·inv is monotone, so max(raw)·inv is the max of the scaled row), then one
// pass that scales, shifts, exponentiates and sums, then the normalisation.
template <class T>
bool softmax_plain_row(const T* raw, T* weights, std::size_t n, T inv_scale) {
    using batch = xsimd::batch<T>;
    constexpr std::size_t w = batch::size;
    constexpr T neg_inf = -std::numeric_limits<T>::infinity();
    batch vmax0(neg_inf), vmax1(neg_inf);
    std::size_t j = 0;
    for (; j + 2 * w <= n; j += 2 * w) {
        vmax0 = xsimd::max(vmax0, batch::load_unaligned(raw + j));
        vmax1 = xsimd::max(vmax1, batch::load_unaligned(raw + j + w));
    }
    alignas(64) T lanes[w];
    xsimd::max(vmax0, vmax1).store_aligned(lanes);
    T raw_max = neg_inf;
    for (std::size_t l = 0; l < w; ++l) raw_max = std::max(raw_max, lanes[l]);
    for (; j < n; ++j) raw_max = std::max(raw_max, raw[j]);
    const T row_max = raw_max * inv_scale;
    if (!std::isfinite(row_max)) {
        std::fill(weights, weights + n, T(0));
        return true;
    }

    const batch vinv(inv_scale), vm(row_max);
    batch sum0(T(0)), sum1(T(0));
    j = 0;
    for (; j + 2 * w <= n; j += 2 * w) {
        const batch e0 = exp_nonpositive(batch::load_unaligned(raw + j) * vinv - vm);
        const batch e1 = exp_nonpositive(batch::load_unaligned(raw + j + w) * vinv - vm);
        e0.store_unaligned(weights + j);
        e1.store_unaligned(weights + j + w);
        sum0 += e0;
        sum1 += e1;
    }
    T sum = xsimd::hadd(sum0 + sum1);
    for (; j < n; ++j) {
        weights[j] = exp_nonpositive_scalar(raw[j] * inv_scale - row_max);
        sum += weights[j];
    }

    // sum ≥ 1 because the max cell contributes e^0.
    scale_row(weights, n, T(1) / sum);
    return false;
}

}  // namespace

template <class T>
bool fast_softmax_row(const T* raw, T* weights, std::size_t n, const softmax_row_inputs<T>& in) {
    using batch = xsimd::batch<T>;
    constexpr std::size_t w = batch::size;
    if (!in.attend && !in.bias && in.inv_scale > 0 && n > 0) return softmax_plain_row(raw, weights, n, in.inv_scale);

    // Pass 1: the scores the softmax sees (scaled, biased, masked) and their max.
    T row_max = -std::numeric_limits<T>::infinity();
    bool any_visible = false;
    for (std::size_t j = 0; j < n; ++j) {
        const bool visible = !in.attend || in.attend[j];
        T s = raw[j] * in.inv_scale;
        if (in.bias) s += in.bias[j];
        weights[j] = visible ? s : in.fill;
        any_visible = any_visible || visible;
        row_max = std::max(row_max, weights[j]);
    }
    if (!any_visible || !std::isfinite(row_max)) {
        std::fill(weights, weights + n, T(0));
        return true;
    }

    // Pass 2: e^(s − max) in place, and the sum. Two accumulators hide add latency.
    const batch vm(row_max);
    batch sum0(T(0)), sum1(T(0));
    std::size_t j = 0;
    for (; j + 2 * w <= n; j += 2 * w) {
        const batch e0 = exp_nonpositive(batch::load_unaligned(weights + j) - vm);
        const batch e1 = exp_nonpositive(batch::load_unaligned(weights + j + w) - vm);
        e0.store_unaligned(weights + j);
        e1.store_unaligned(weights + j + w);
        sum0 += e0;
        sum1 += e1;
    }
    T sum = xsimd::hadd(sum0 + sum1);
    for (; j < n; ++j) {
        weights[j] = exp_nonpositive_scalar(weights[j] - row_max);
        sum += weights[j];
    }

    // Pass 3: normalise. sum ≥ 1 because the max cell contributes e^0.
    scale_row(weights, n, T(1) / sum);
    return false;
}

template bool fast_softmax_row<float>(const float*, float*, std::size_t, const softmax_row_inputs<float>&);
template bool fast_softmax_row<double>(const double*, double*, std::size_t, const softmax_row_inputs<double>&);
template void fast_exp_nonpositive<float>(float*, std::size_t);
template void fast_exp_nonpositive<double>(double*, std::size_t);

}  // namespace attn
