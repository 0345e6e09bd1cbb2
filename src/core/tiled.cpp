// core/tiled.cpp — see tiled.hpp: the online softmax, one query row at a time,
// one key block at a time.
#include "core/tiled.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "core/shape_check.hpp"
#include "core/shape_error.hpp"

namespace attn {

namespace {

constexpr double neg_inf = -std::numeric_limits<double>::infinity();

// The running state of one query row.
struct row_state {
    double m = neg_inf;  // running max
    double l = 0.0;      // running sum
    vector o;            // [d_v] unnormalised output
};

// One block [begin, end) of keys folded into the state of row i.
double fold_block(row_state& st, const matrix& q, const matrix& k, const matrix& v, const tiled_options& opt,
                  double scale, std::size_t i, std::size_t begin, std::size_t end) {
    const std::size_t d_k = q.shape(1), d_v = v.shape(1);
    // Pass 1: the block's scores and its max.
    std::vector<double> s(end - begin, neg_inf);  // [tile]
    double block_max = neg_inf;
    for (std::size_t j = begin; j < end; ++j) {
        if (opt.mask && !(*opt.mask)(i, j)) continue;
        double dot = 0.0;
        for (std::size_t c = 0; c < d_k; ++c) dot += q(i, c) * k(j, c);
        s[j - begin] = dot / scale + (opt.bias ? (*opt.bias)(i, j) : 0.0);
        block_max = std::max(block_max, s[j - begin]);
    }
    // Pass 2: the new running max and the factor that rescales the old state.
    const double m_new = std::max(st.m, block_max);
    if (m_new == neg_inf) return 1.0;  // nothing visible yet: the state stays empty
    const double correction = st.m == neg_inf ? 1.0 : std::exp(st.m - m_new);  // the first visible block: l = o = 0 anyway
    // Pass 3: rescale, then add this block's exponentials.
    st.l *= correction;
    if (!opt.skip_rescale)
        for (std::size_t c = 0; c < d_v; ++c) st.o(c) *= correction;
    for (std::size_t j = begin; j < end; ++j) {
        if (s[j - begin] == neg_inf) continue;
        const double e = std::exp(s[j - begin] - m_new);
        st.l += e;
        for (std::size_t c = 0; c < d_v; ++c) st.o(c) += e * v(j, c);
    }
    st.m = m_new;
    return correction;
}

}  // namespace

tiled_steps tiled_attention(const matrix& q, const matrix& k, const matrix& v, const tiled_options& opt) {
    attention_shapes sh{q.shape(0), q.shape(1), k.shape(0), k.shape(1), v.shape(0), v.shape(1), std::nullopt,
                        std::nullopt};
    if (opt.mask) sh.mask = std::make_pair(opt.mask->shape(0), opt.mask->shape(1));
    if (opt.bias) sh.bias = std::make_pair(opt.bias->shape(0), opt.bias->shape(1));
    check_attention_shapes(sh);
    if (opt.tile == 0) throw shape_error("tile must be at least 1 key per block");

    const std::size_t n_q = q.shape(0), n_k = k.shape(0), d_v = v.shape(1);
    tiled_steps t;
    t.tile = opt.tile;
    t.blocks = (n_k + opt.tile - 1) / opt.tile;
    t.scale = opt.scale_divisor ? *opt.scale_divisor : std::sqrt(static_cast<double>(q.shape(1)));
    t.running_max = xt::zeros<double>({n_q, t.blocks});          // [n_q, blocks]
    t.correction = xt::ones<double>({n_q, t.blocks});            // [n_q, blocks]
    t.running_sum = xt::zeros<double>({n_q, t.blocks});          // [n_q, blocks]
    t.partial_output = xt::zeros<double>({t.blocks, n_q, d_v});  // [blocks, n_q, d_v]
    t.output = xt::zeros<double>({n_q, d_v});                    // [n_q, d_v]
    t.extra_values = 2 * n_q + opt.tile;

    for (std::size_t i = 0; i < n_q; ++i) {
        row_state st;
        st.o = xt::zeros<double>({d_v});  // [d_v]
        // Pass A: fold the key blocks in, left to right, recording the state after each.
        for (std::size_t b = 0; b < t.blocks; ++b) {
            const std::size_t begin = b * opt.tile, end = std::min(n_k, begin + opt.tile);
            t.correction(i, b) = fold_block(st, q, k, v, opt, t.scale, i, begin, end);
            t.running_max(i, b) = st.m;
            t.running_sum(i, b) = st.l;
            for (std::size_t c = 0; c < d_v; ++c) t.partial_output(b, i, c) = st.o(c);
        }
        // Pass B: one division per output entry. A row that saw no key stays 0.
        if (st.l > 0.0)
            for (std::size_t c = 0; c < d_v; ++c) t.output(i, c) = st.o(c) / st.l;
    }
    return t;
}

}  // namespace attn
