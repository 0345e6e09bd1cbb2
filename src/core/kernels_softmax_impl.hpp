// core/kernels_softmax_impl.hpp — the softmax half of the attention kernels, one
// template for every instruction-set file (included inside its anonymous namespace
// after core/kernels_impl.hpp; same rules: no includes, no standard-library templates,
// builtins only, so no function compiled for a wide set is ever shared with a caller
// that runs on a narrower CPU). On top of core/kernels_impl.hpp's vector type V it
// uses GCC's vector operators (+ − × <, ?: with a vector condition, lane subscripts),
// which work on the intrinsic types as well.
//
// exp: the softmax only needs e^x for x = score − row max ≤ 0: Cody–Waite reduction
// x = k·ln2 + r (|r| ≤ ln2/2, the ln2 split keeps it exact with or without FMA), Estrin's
// scheme for the Taylor polynomial of e^r (degree 6 for float, 12 for double: a few ulp),
// 2^k made in the exponent bits. k rounds to nearest by adding 1.5·2^mantissa, which
// also leaves k in the low bits for the exponent. x below the smallest normal's log → 0.

template <class T>
struct exp_consts;
template <>
struct exp_consts<float> {
    static constexpr float lowest = -87.0f;  // e^−87 ≈ 1.6e-38: still a normal float
    static constexpr float log2e = 1.44269504088896341f;
    static constexpr float ln2_hi = 0.693359375f;
    static constexpr float ln2_lo = -2.12194440e-4f;
    static constexpr float magic = 12582912.0f;  // 1.5 · 2^23
    static constexpr int mantissa_bits = 23, bias = 127, degree = 6;
};
template <>
struct exp_consts<double> {
    static constexpr double lowest = -708.0;  // e^−708 ≈ 3.3e-308: still a normal double
    static constexpr double log2e = 1.44269504088896340736;
    static constexpr double ln2_hi = 6.93147180369123816490e-01;
    static constexpr double ln2_lo = 1.90821492927058770002e-10;
    static constexpr double magic = 6755399441055744.0;  // 1.5 · 2^52
    static constexpr int mantissa_bits = 52, bias = 1023, degree = 12;
};

constexpr double inv_fact[13] = {1.0,         1.0,          1.0 / 2,        1.0 / 6,         1.0 / 24,
                                 1.0 / 120,   1.0 / 720,    1.0 / 5040,     1.0 / 40320,     1.0 / 362880,
                                 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600};

template <class V>
ATTN_KERNEL_INLINE typename V::reg taylor_exp(typename V::reg r) {
    using T = typename V::T;
    using reg = typename V::reg;
    auto c = [](int i) { return V::set1(static_cast<T>(inv_fact[i])); };
    const reg r2 = r * r, r4 = r2 * r2;
    if constexpr (exp_consts<T>::degree == 6) {
        const reg p03 = V::fma(V::fma(c(3), r, c(2)), r2, V::fma(c(1), r, c(0)));
        const reg p46 = V::fma(c(6), r2, V::fma(c(5), r, c(4)));
        return V::fma(p46, r4, p03);
    } else {
        const reg r8 = r4 * r4;
        const reg p03 = V::fma(V::fma(c(3), r, c(2)), r2, V::fma(c(1), r, c(0)));
        const reg p47 = V::fma(V::fma(c(7), r, c(6)), r2, V::fma(c(5), r, c(4)));
        const reg p811 = V::fma(V::fma(c(11), r, c(10)), r2, V::fma(c(9), r, c(8)));
        const reg p07 = V::fma(p47, r4, p03);
        return V::fma(V::fma(c(12), r4, p811), r8, p07);
    }
}

// e^x for a vector of x ≤ 0 (−inf allowed).
template <class V>
ATTN_KERNEL_INLINE typename V::reg exp_le0(typename V::reg x) {
    using T = typename V::T;
    using C = exp_consts<T>;
    using reg = typename V::reg;
    using ireg = decltype(V::zero() < V::zero());  // integer lanes as wide as T's
    const reg lowest = V::set1(C::lowest), magic = V::set1(C::magic);
    const ireg under = x < lowest;
    const reg xc = under ? lowest : x;
    const reg t = V::fma(xc, V::set1(C::log2e), magic);  // magic + round(x·log2 e)
    const reg k = t - magic;
    const reg r = V::fma(k, V::set1(-C::ln2_lo), V::fma(k, V::set1(-C::ln2_hi), xc));
    const ireg k_int = (ireg)t - (ireg)magic;
    const reg pow2 = (reg)((k_int + C::bias) << C::mantissa_bits);
    const reg e = taylor_exp<V>(r) * pow2;
    return under ? V::zero() : e;
}

template <class T>
ATTN_KERNEL_INLINE T exp_le0_scalar(T x) {
    if (x < exp_consts<T>::lowest) return T(0);
    if constexpr (sizeof(T) == sizeof(float)) return __builtin_expf(x); else return __builtin_exp(x);
}

template <class V>
void exp_in_place(typename V::T* x, std::size_t n) {
    constexpr std::size_t w = V::width;
    std::size_t j = 0;
    for (; j + w <= n; j += w) V::store(x + j, exp_le0<V>(V::load(x + j)));
    for (; j < n; ++j) x[j] = exp_le0_scalar(x[j]);
}

template <class T>
ATTN_KERNEL_INLINE T max_of(T a, T b) { return a > b ? a : b; }

// Sum and max over the lanes of a vector.
template <class V>
ATTN_KERNEL_INLINE typename V::T lanes_sum(typename V::reg v) {
    typename V::T s = 0;
    for (std::size_t l = 0; l < V::width; ++l) s += v[l];
    return s;
}
template <class V>
ATTN_KERNEL_INLINE typename V::T lanes_max(typename V::reg v) {
    typename V::T m = v[0];
    for (std::size_t l = 1; l < V::width; ++l) m = max_of(m, v[l]);
    return m;
}

// Pass 1 of a row: s = raw · inv_scale (+ bias), blocked cells = fill, into out;
// returns the max over the row (−inf when nothing is visible) and whether any is visible.
template <class V>
typename V::T scores_of_row(const typename V::T* raw, typename V::T* out, std::size_t n,
                            const softmax_row_inputs<typename V::T>& in, bool& any_visible) {
    using T = typename V::T;
    using reg = typename V::reg;
    constexpr std::size_t w = V::width;
    const T neg_inf = -__builtin_huge_val();
    std::size_t j = 0;
    if (!in.attend) {
        any_visible = n > 0;
        const reg vi = V::set1(in.inv_scale);
        reg m0 = V::set1(neg_inf), m1 = m0;
        for (; j + 2 * w <= n; j += 2 * w) {
            reg s0 = V::load(raw + j) * vi, s1 = V::load(raw + j + w) * vi;
            if (in.bias) s0 += V::load(in.bias + j), s1 += V::load(in.bias + j + w);
            V::store(out + j, s0);
            V::store(out + j + w, s1);
            m0 = s0 > m0 ? s0 : m0;
            m1 = s1 > m1 ? s1 : m1;
        }
        T m = lanes_max<V>(m1 > m0 ? m1 : m0);
        for (; j < n; ++j) {
            T s = raw[j] * in.inv_scale;
            if (in.bias) s += in.bias[j];
            out[j] = s;
            m = max_of(m, s);
        }
        return m;
    }
    T m = neg_inf;
    bool any = false;
    for (; j < n; ++j) {
        const bool visible = in.attend[j];
        T s = raw[j] * in.inv_scale;
        if (in.bias) s += in.bias[j];
        out[j] = visible ? s : in.fill;
        any = any || visible;
        m = max_of(m, out[j]);
    }
    any_visible = any;
    return m;
}

// x[j] = e^(x[j] − m) in place; returns Σ x[j]. Two accumulators hide the add latency.
template <class V>
typename V::T exp_shifted_sum(typename V::T* x, std::size_t n, typename V::T m) {
    using T = typename V::T;
    using reg = typename V::reg;
    constexpr std::size_t w = V::width;
    const reg vm = V::set1(m);
    reg s0 = V::zero(), s1 = V::zero();
    std::size_t j = 0;
    for (; j + 2 * w <= n; j += 2 * w) {
        const reg e0 = exp_le0<V>(V::load(x + j) - vm), e1 = exp_le0<V>(V::load(x + j + w) - vm);
        V::store(x + j, e0);
        V::store(x + j + w, e1);
        s0 += e0;
        s1 += e1;
    }
    T s = lanes_sum<V>(s0 + s1);
    for (; j < n; ++j) {
        x[j] = exp_le0_scalar(x[j] - m);
        s += x[j];
    }
    return s;
}

template <class V>
void scale_in_place(typename V::T* x, std::size_t n, typename V::T f) {
    constexpr std::size_t w = V::width;
    const typename V::reg vf = V::set1(f);
    std::size_t j = 0;
    for (; j + w <= n; j += w) V::store(x + j, V::load(x + j) * vf);
    for (; j < n; ++j) x[j] *= f;
}

// The max of the scaled scores of a row with no mask and no bias, reading raw only:
// (max raw) · inv_scale is the max of raw · inv_scale for inv_scale > 0 (rounding is
// monotone), and the lanes and the tail are reduced as in scores_of_row, NaN included.
template <class V>
typename V::T plain_row_max(const typename V::T* raw, std::size_t n, typename V::T inv_scale) {
    using T = typename V::T;
    using reg = typename V::reg;
    constexpr std::size_t w = V::width;
    reg m0 = V::set1(-__builtin_huge_val()), m1 = m0;
    std::size_t j = 0;
    for (; j + 2 * w <= n; j += 2 * w) {
        const reg s0 = V::load(raw + j) * V::set1(inv_scale), s1 = V::load(raw + j + w) * V::set1(inv_scale);
        m0 = s0 > m0 ? s0 : m0;
        m1 = s1 > m1 ? s1 : m1;
    }
    T m = lanes_max<V>(m1 > m0 ? m1 : m0);
    for (; j < n; ++j) m = max_of(m, raw[j] * inv_scale);
    return m;
}

// weights = e^(raw · inv_scale − m), returns their sum: exp_shifted_sum on the scaled
// scores without writing them first (same operations, same bits).
template <class V>
typename V::T exp_scaled_sum(const typename V::T* raw, typename V::T* weights, std::size_t n, typename V::T inv_scale,
                             typename V::T m) {
    using T = typename V::T;
    using reg = typename V::reg;
    constexpr std::size_t w = V::width;
    const reg vm = V::set1(m), vi = V::set1(inv_scale);
    reg s0 = V::zero(), s1 = V::zero();
    std::size_t j = 0;
    for (; j + 2 * w <= n; j += 2 * w) {
        const reg e0 = exp_le0<V>(V::load(raw + j) * vi - vm), e1 = exp_le0<V>(V::load(raw + j + w) * vi - vm);
        V::store(weights + j, e0);
        V::store(weights + j + w, e1);
        s0 += e0;
        s1 += e1;
    }
    T s = lanes_sum<V>(s0 + s1);
    for (; j < n; ++j) {
        weights[j] = exp_le0_scalar(raw[j] * inv_scale - m);
        s += weights[j];
    }
    return s;
}

// The softmax of a row with no mask and no bias in two reads of raw and one of the
// weights (scores_of_row would write the scaled scores and read them back).
template <class V>
bool plain_softmax_row(const typename V::T* raw, typename V::T* weights, std::size_t n, typename V::T inv_scale) {
    using T = typename V::T;
    const T m = plain_row_max<V>(raw, n, inv_scale);
    if (n == 0 || !__builtin_isfinite(m)) {
        for (std::size_t j = 0; j < n; ++j) weights[j] = T(0);
        return true;
    }
    const T sum = exp_scaled_sum<V>(raw, weights, n, inv_scale, m);  // ≥ 1: the max cell gives e^0
    scale_in_place<V>(weights, n, T(1) / sum);
    return false;
}

// The whole softmax of one row (core/fast_softmax.hpp's contract): true = no distribution.
template <class V>
bool softmax_row(const typename V::T* raw, typename V::T* weights, std::size_t n,
                 const softmax_row_inputs<typename V::T>& in) {
    using T = typename V::T;
    if (!in.attend && !in.bias && in.inv_scale > T(0) && __builtin_isfinite(in.inv_scale))
        return plain_softmax_row<V>(raw, weights, n, in.inv_scale);
    bool any = false;
    const T m = scores_of_row<V>(raw, weights, n, in, any);
    if (!any || !__builtin_isfinite(m)) {
        for (std::size_t j = 0; j < n; ++j) weights[j] = T(0);
        return true;
    }
    const T sum = exp_shifted_sum<V>(weights, n, m);  // ≥ 1: the max cell gives e^0
    scale_in_place<V>(weights, n, T(1) / sum);
    return false;
}
