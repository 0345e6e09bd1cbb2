// model/train_simd (training's AVX-512 GELU and SwiGLU gate, forward and backward) gives the bits of the scalar code:
// its e^x equals std::exp(float) on a spread of every float's bit patterns and on the
// edges (overflow to ∞, underflow through the subnormals to 0, NaN, ±0), its GELU
// equals the scalar formula of model/train_layers element for element, and the
// attention layers give the same bytes with the AVX-512 set as with the generic one
// (which runs train_layers' scalar loops). On a CPU without
// AVX-512 the calls do nothing and say so (0 elements done).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/fast_softmax.hpp"
#include "core/kernels.hpp"
#include "core/matmul.hpp"
#include "model/adamw.hpp"
#include "model/init.hpp"
#include "model/llama_layers.hpp"
#include "model/train_layers.hpp"
#include "model/train_simd.hpp"

using namespace attn;
namespace simd = attn::model::training::simd;

namespace {

float from_bits(std::uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

bool same_float_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Inputs: bit patterns spread over all 2^32 (every `stride`-th), then the edges.
std::vector<float> exp_inputs(std::uint64_t stride) {
    std::vector<float> x;
    for (std::uint64_t b = 0; b < (std::uint64_t(1) << 32); b += stride) x.push_back(from_bits(std::uint32_t(b)));
    const float inf = std::numeric_limits<float>::infinity();
    for (float e : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 88.0f, 0x1.62e42ep6f,
                    std::nextafter(0x1.62e42ep6f, inf), -0x1.9fe368p6f, std::nextafter(-0x1.9fe368p6f, -inf),
                    -87.5f, -100.0f, -103.0f, 1e-30f, -1e-30f})
        x.push_back(e);
    for (float v = -104.0f; v < 89.0f; v += 0.0625f) x.push_back(v);  // whole range, steps of 1/16
    while (x.size() % 16 != 0) x.push_back(1.0f);
    return x;
}

}  // namespace

TEST_CASE("training's vector e to the x equals std exp bit for bit", "[model][train][simd]") {
    const auto& set = kernels::active();
    INFO("kernel set " << set.name);
#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
    const std::vector<float> x = exp_inputs(1000003);
#else
    const std::vector<float> x = exp_inputs(4099);  // about a million patterns
#endif
    std::vector<float> got(x.size());
    const std::size_t done = simd::exp(got.data(), x.data(), x.size());
    if (!simd::available()) {
        CHECK(done == 0);
        WARN("no AVX-512 here: the scalar code runs, nothing vector to check");
        return;
    }
    REQUIRE(done == x.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const float want = std::exp(x[i]);
        if (same_float_bits(want, got[i]) || (std::isnan(want) && std::isnan(got[i]))) continue;
        if (++bad <= 5) FAIL_CHECK("e^" << x[i] << ": std::exp " << want << ", vector " << got[i]);
    }
    CHECK(bad == 0);
}

TEST_CASE("training's vector GELU forward equals the scalar formula bit for bit", "[model][train][simd]") {
    std::vector<float> x;
    for (float v = -12.0f; v < 12.0f; v += 0.0078125f) x.push_back(v);
    for (float v : {0.0f, -0.0f, 30.0f, -30.0f, 1e-20f, -1e-20f}) x.push_back(v);
    while (x.size() % 16 != 3) x.push_back(0.5f);  // a tail the vector path leaves
    std::vector<float> out(x.size()), th(x.size());
    const std::size_t done = simd::gelu_forward(out.data(), th.data(), x.data(), x.size());
    if (!simd::available()) {
        CHECK(done == 0);
        return;
    }
    REQUIRE(done == x.size() - 3);
    const float c = static_cast<float>(0.7978845608028654), k = static_cast<float>(0.044715);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < done; ++i) {  // train_layers.cpp's gelu_forward, fast_tanh
        const float u = c * (x[i] + k * x[i] * x[i] * x[i]);
        const float want_th = 1.0f - 2.0f / (std::exp(2.0f * u) + 1.0f);
        const float want = 0.5f * x[i] * (1.0f + want_th);
        if (same_float_bits(want_th, th[i]) && same_float_bits(want, out[i])) continue;
        if (++bad <= 5) FAIL_CHECK("GELU(" << x[i] << "): scalar " << want << ", vector " << out[i]);
    }
    CHECK(bad == 0);
}

TEST_CASE("training's vector GELU backward equals the scalar formula bit for bit", "[model][train][simd]") {
    std::vector<float> x, th, dout, dinp;
    for (float v = -8.0f; v < 8.0f; v += 0.015625f) {
        x.push_back(v);
        th.push_back(std::tanh(v * 0.75f));
        dout.push_back(0.25f - v * 0.125f);
        dinp.push_back(v * 0.5f);
    }
    while (x.size() % 16 != 5) x.push_back(0.5f), th.push_back(0.4f), dout.push_back(1.0f), dinp.push_back(0.0f);
    std::vector<float> got = dinp;
    const std::size_t done = simd::gelu_backward(got.data(), x.data(), th.data(), dout.data(), x.size(), true);
    // Written (add false) over garbage: the bits of adding into zeros.
    std::vector<float> zeros(x.size(), 0.0f), written(x.size(), std::nanf(""));
    simd::gelu_backward(zeros.data(), x.data(), th.data(), dout.data(), x.size(), true);
    simd::gelu_backward(written.data(), x.data(), th.data(), dout.data(), x.size(), false);
    for (std::size_t i = 0; i < done; ++i) CHECK(same_float_bits(zeros[i], written[i]));
    if (!simd::available()) {
        CHECK(done == 0);
        return;
    }
    REQUIRE(done == x.size() - 5);
    const float c = static_cast<float>(0.7978845608028654), k = static_cast<float>(0.044715);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < done; ++i) {  // train_layers.cpp's gelu_backward
        const float sech2 = 1.0f - th[i] * th[i];
        const float du = c * (1.0f + 3.0f * k * x[i] * x[i]);
        const float want = dinp[i] + dout[i] * (0.5f * (1.0f + th[i]) + 0.5f * x[i] * sech2 * du);
        if (same_float_bits(want, got[i])) continue;
        if (++bad <= 5) FAIL_CHECK("GELU'(" << x[i] << "): scalar " << want << ", vector " << got[i]);
    }
    CHECK(bad == 0);
    CHECK(got[x.size() - 1] == dinp[x.size() - 1]);  // the tail is the caller's: untouched
}

TEST_CASE("training's vector SwiGLU gate equals the scalar formula bit for bit, forward and backward",
          "[model][train][simd]") {
    std::vector<float> g, up, dpost, dgate, dup;
    for (float v = -20.0f; v < 20.0f; v += 0.01953125f) {
        g.push_back(v);
        up.push_back(0.75f - v * 0.3f);
        dpost.push_back(0.25f - v * 0.125f);
        dgate.push_back(v * 0.5f);
        dup.push_back(-v * 0.25f);
    }
    for (float v : {0.0f, -0.0f, 90.0f, -90.0f, 110.0f, -110.0f, 1e-20f, -1e-20f}) {
        g.push_back(v), up.push_back(1.5f), dpost.push_back(-0.5f), dgate.push_back(0.0f), dup.push_back(1.0f);
    }
    while (g.size() % 16 != 7)
        g.push_back(0.5f), up.push_back(2.0f), dpost.push_back(1.0f), dgate.push_back(0.0f), dup.push_back(0.0f);
    std::vector<float> post(g.size(), 0.0f), got_dgate = dgate, got_dup = dup;
    const std::size_t done = simd::silu_gate_forward(post.data(), g.data(), up.data(), g.size());
    const std::size_t done_back =
        simd::silu_gate_backward(got_dgate.data(), got_dup.data(), dpost.data(), g.data(), up.data(), g.size(), true);
    if (!simd::available()) {
        CHECK(done == 0);
        CHECK(done_back == 0);
        return;
    }
    REQUIRE(done == g.size() - 7);
    REQUIRE(done_back == g.size() - 7);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < done; ++i) {  // llama_layers.cpp's silu_gate_forward / silu_gate_backward
        const float sig = 1.0f / (1.0f + std::exp(-g[i]));
        const float want_post = (g[i] * sig) * up[i];
        const float want_dgate = dgate[i] + dpost[i] * up[i] * (sig * (1.0f + g[i] * (1.0f - sig)));
        const float want_dup = dup[i] + dpost[i] * (g[i] * sig);
        if (same_float_bits(want_post, post[i]) && same_float_bits(want_dgate, got_dgate[i]) &&
            same_float_bits(want_dup, got_dup[i]))
            continue;
        if (++bad <= 5)
            FAIL_CHECK("SiLU gate at g = " << g[i] << ": scalar " << want_post << " " << want_dgate << " " << want_dup
                                           << ", vector " << post[i] << " " << got_dgate[i] << " " << got_dup[i]);
    }
    CHECK(bad == 0);
    CHECK(post.back() == 0.0f);  // the tail is the caller's: untouched
    CHECK(got_dgate.back() == dgate.back());
}

namespace {

// The attention layers' outputs for one kernel set: z, scores, pattern, then the backward's
// dqkv, dscores, dpattern, all in one vector.
std::vector<float> simd_attention_run(kernels::isa which, std::size_t B, std::size_t Tn, std::size_t C,
                                      std::size_t NH) {
    kernels::force(which);
    const std::size_t N = B * Tn, grid = B * NH * Tn * Tn;
    std::vector<float> qkv(N * 3 * C), dz(N * C), z(N * C), scores(grid), pattern(grid);
    std::vector<float> dqkv(N * 3 * C, 0.125f), dscores(grid), dpattern(grid);
    std::uint32_t state = 7;
    for (auto* v : {&qkv, &dz})
        for (auto& x : *v) x = static_cast<float>((state = state * 1664525u + 1013904223u) >> 8) * 0x1.0p-24f * 4.0f - 2.0f;
    model::training::attention_forward(z.data(), scores.data(), pattern.data(), qkv.data(), B, Tn, C, NH);
    model::training::attention_backward(dqkv.data(), dscores.data(), dpattern.data(), dz.data(), qkv.data(),
                                        pattern.data(), B, Tn, C, NH);
    std::vector<float> all;
    for (const auto* v : {&z, &scores, &pattern, &dqkv, &dscores, &dpattern}) all.insert(all.end(), v->begin(), v->end());
    return all;
}

}  // namespace

TEST_CASE("training's vector attention gives the scalar loops' bytes forward and backward", "[model][train][simd]") {
    const auto best = kernels::best_supported();
    struct shape {
        std::size_t B, Tn, C, NH;
    };
    // The sort model's heads (11 positions, 3 heads of 16), then 16 positions of 2 heads of 32.
    for (const shape sh : {shape{3, 11, 48, 3}, shape{2, 16, 64, 2}}) {
        INFO("T " << sh.Tn << " C " << sh.C << " heads " << sh.NH);
        const std::vector<float> scalar = simd_attention_run(kernels::isa::generic, sh.B, sh.Tn, sh.C, sh.NH);
        const std::vector<float> best_set = simd_attention_run(best, sh.B, sh.Tn, sh.C, sh.NH);
        CHECK(std::memcmp(scalar.data(), best_set.data(), scalar.size() * sizeof(float)) == 0);
        std::size_t finite = 0;
        for (float x : scalar) finite += std::isfinite(x) ? 1 : 0;
        CHECK(finite > scalar.size() / 2);  // not a comparison of two empty results (scores hold −∞)
        if (!simd::available()) {
            WARN("no AVX-512 here: both runs took the scalar loops");
            continue;
        }
        std::vector<float> qkv(sh.Tn * 3 * sh.C, 0.5f), z(sh.Tn * sh.C), grid(sh.NH * sh.Tn * sh.Tn), pat(grid.size());
        CHECK(simd::attention_forward(z.data(), grid.data(), pat.data(), qkv.data(), 0, sh.Tn, sh.C, sh.NH));  // vector path taken
    }
    kernels::force(best);
}

namespace {

struct simd_gqa_case {
    std::size_t B, Tn, H, KV, dh;
    std::vector<float> q, k, v, dz;  // [B, T, heads, dh] (k, v: KV heads)
};

simd_gqa_case simd_gqa_inputs(std::size_t B, std::size_t Tn, std::size_t H, std::size_t KV, std::size_t dh) {
    simd_gqa_case c{B, Tn, H, KV, dh, std::vector<float>(B * Tn * H * dh), std::vector<float>(B * Tn * KV * dh),
                    std::vector<float>(B * Tn * KV * dh), std::vector<float>(B * Tn * H * dh)};
    std::uint32_t state = 11;
    for (auto* x : {&c.q, &c.k, &c.v, &c.dz})
        for (auto& e : *x) e = static_cast<float>((state = state * 1664525u + 1013904223u) >> 8) * 0x1.0p-24f * 4.0f - 2.0f;
    return c;
}

// The layer's outputs: z, scores, pattern, then the backward's dq, dk, dv, dscores,
// dpattern, all in one vector (dq, dk, dv start from constants: the backward writes them).
std::vector<float> simd_gqa_run(const simd_gqa_case& c) {
    const std::size_t grid = c.B * c.H * c.Tn * c.Tn;
    std::vector<float> z(c.q.size()), scores(grid), pattern(grid), dscores(grid), dpattern(grid);
    std::vector<float> dq(c.q.size(), 0.125f), dk(c.k.size(), -0.25f), dv(c.k.size(), 0.5f);
    model::llama::gqa_attention_forward(z.data(), scores.data(), pattern.data(), c.q.data(), c.k.data(), c.v.data(),
                                        c.B, c.Tn, c.H, c.KV, c.dh);
    model::llama::gqa_attention_backward(dq.data(), dk.data(), dv.data(), dscores.data(), dpattern.data(), c.dz.data(),
                                         c.q.data(), c.k.data(), c.v.data(), pattern.data(), c.B, c.Tn, c.H, c.KV, c.dh);
    std::vector<float> all;
    for (const auto* x : {&z, &scores, &pattern, &dq, &dk, &dv, &dscores, &dpattern})
        all.insert(all.end(), x->begin(), x->end());
    return all;
}

// The same layer written here as one core/matmul call per product (one block of query
// rows: T ≤ 64), core's row softmax, the softmax backward's loop: what llama_attention.cpp
// computed before the vector path, with the kernel set chosen now.
std::vector<float> simd_gqa_by_matmul(const simd_gqa_case& c) {
    const std::size_t B = c.B, Tn = c.Tn, H = c.H, KV = c.KV, dh = c.dh, ldq = H * dh, ldk = KV * dh, grid = B * H * Tn * Tn;
    const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
    std::vector<float> z(c.q.size()), scores(grid), pattern(grid), dscores(grid), dpattern(grid);
    std::vector<float> dq(c.q.size(), 0.0f), dk(c.k.size(), 0.0f), dv(c.k.size(), 0.0f);  // what the layer writes: sums from 0
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h) {
            const std::size_t map = (b * H + h) * Tn * Tn, qo = b * Tn * ldq + h * dh, ko = b * Tn * ldk + h / (H / KV) * dh;
            float *s = scores.data() + map, *a = pattern.data() + map;
            matmul(false, true, Tn, Tn, dh, scale, c.q.data() + qo, ldq, c.k.data() + ko, ldk, 0.0f, s, Tn);
            for (std::size_t t = 0; t < Tn; ++t) {
                fast_softmax_row(s + t * Tn, a + t * Tn, t + 1, softmax_row_inputs<float>{});
                for (std::size_t u = t + 1; u < Tn; ++u) s[t * Tn + u] = -std::numeric_limits<float>::infinity(), a[t * Tn + u] = 0;
            }
            matmul(false, false, Tn, dh, Tn, 1.0f, a, Tn, c.v.data() + ko, ldk, 0.0f, z.data() + qo, ldq);
        }
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h) {  // a group's heads in order: they add to its dk, dv
            const std::size_t map = (b * H + h) * Tn * Tn, qo = b * Tn * ldq + h * dh, ko = b * Tn * ldk + h / (H / KV) * dh;
            const float* a = pattern.data() + map;
            float *da = dpattern.data() + map, *ds = dscores.data() + map;
            matmul(false, true, Tn, Tn, dh, 1.0f, c.dz.data() + qo, ldq, c.v.data() + ko, ldk, 0.0f, da, Tn);
            for (std::size_t t = 0; t < Tn; ++t) {
                float row_dot = 0;
                for (std::size_t u = 0; u <= t; ++u) row_dot += a[t * Tn + u] * da[t * Tn + u];
                for (std::size_t u = 0; u <= t; ++u) ds[t * Tn + u] = a[t * Tn + u] * (da[t * Tn + u] - row_dot);
                for (std::size_t u = t + 1; u < Tn; ++u) da[t * Tn + u] = ds[t * Tn + u] = 0;
            }
            matmul(false, false, Tn, dh, Tn, scale, ds, Tn, c.k.data() + ko, ldk, 1.0f, dq.data() + qo, ldq);
            matmul(true, false, Tn, dh, Tn, scale, ds, Tn, c.q.data() + qo, ldq, 1.0f, dk.data() + ko, ldk);
            matmul(true, false, Tn, dh, Tn, 1.0f, a, Tn, c.dz.data() + qo, ldq, 1.0f, dv.data() + ko, ldk);
        }
    std::vector<float> all;
    for (const auto* x : {&z, &scores, &pattern, &dq, &dk, &dv, &dscores, &dpattern})
        all.insert(all.end(), x->begin(), x->end());
    return all;
}

}  // namespace

TEST_CASE("training's vector grouped-query attention gives core/matmul's bytes forward and backward",
          "[model][train][simd][llama]") {
    struct shape {
        std::size_t B, Tn, H, KV, dh;
    };
    // The Llama sort model (11 positions, 3 heads of 16), GQA 4/2 of 32 at 16 positions,
    // multi-query 6/1 of 128, one position, and 17 positions (over one vector: matmul both times).
    for (const shape sh : {shape{3, 11, 3, 3, 16}, shape{2, 16, 4, 2, 32}, shape{1, 9, 6, 1, 128}, shape{2, 1, 2, 1, 16},
                           shape{1, 17, 2, 2, 16}}) {
        INFO("T " << sh.Tn << " heads " << sh.H << "/" << sh.KV << " of " << sh.dh << ", kernel set "
                  << kernels::active().name);
        CHECK(simd::gqa_fits(sh.Tn, sh.dh) == (simd::available() && sh.Tn <= 16));
        const simd_gqa_case c = simd_gqa_inputs(sh.B, sh.Tn, sh.H, sh.KV, sh.dh);
        const std::vector<float> layer = simd_gqa_run(c), reference = simd_gqa_by_matmul(c);
        REQUIRE(layer.size() == reference.size());
        CHECK(std::memcmp(layer.data(), reference.data(), layer.size() * sizeof(float)) == 0);
        std::size_t finite = 0;
        for (float x : reference) finite += std::isfinite(x) ? 1 : 0;
        CHECK(finite > reference.size() / 2);  // not a comparison of two empty results (scores hold −∞)
    }
}

TEST_CASE("training's vector layer norm backward and AdamW give the scalar loops' bytes", "[model][train][simd]") {
    const auto best = kernels::best_supported();
    auto run = [](kernels::isa which) {
        kernels::force(which);
        const std::size_t N = 70, C = 48;  // rows not a multiple of a block, columns three vectors
        std::vector<float> x(N * C), d(N * C), w(C), mean(N), rstd(N), dx(N * C, 0.25f), dw(C, 0.5f), db(C, -0.5f);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * float(i)), d[i] = std::cos(0.11f * float(i));
        for (std::size_t i = 0; i < C; ++i) w[i] = 1.0f + 0.01f * float(i);
        for (std::size_t r = 0; r < N; ++r) mean[r] = 0.01f * float(r), rstd[r] = 1.5f - 0.001f * float(r);
        model::training::layer_norm_backward(dx.data(), dw.data(), db.data(), d.data(), x.data(), w.data(), mean.data(),
                                             rstd.data(), N, C);
        // Three AdamW steps on a small model whose "gradients" are its own weights, scaled.
        model::architecture c;
        c.n_layer = 1, c.n_head = 2, c.n_embd = 32, c.vocab_size = 5, c.n_positions = 8, c.mlp = model::mlp_kind::gelu_tanh;
        auto params = model::init_params<float>(c, 3), grads = params;
        model::adamw_config o;
        o.lr = 0.01, o.weight_decay = 0.1, o.clip = 1.0;
        model::adamw<float> opt(o, c);
        for (int s = 0; s < 3; ++s) {
            grads = params;
            opt.step(params, grads);
        }
        std::vector<float> all = dx;
        all.insert(all.end(), dw.begin(), dw.end());
        all.insert(all.end(), db.begin(), db.end());
        model::for_each_param(params, [&](const std::string&, model::param_kind, const auto& t) { all.insert(all.end(), t.begin(), t.end()); });
        return all;
    };
    const std::vector<float> scalar = run(kernels::isa::generic), best_set = run(best);
    kernels::force(best);
    REQUIRE(scalar.size() == best_set.size());
    CHECK(std::memcmp(scalar.data(), best_set.data(), scalar.size() * sizeof(float)) == 0);
    CHECK(scalar[0] != 0.25f);  // the backward added something
}

TEST_CASE("training's vector norms (rows in lanes) give the scalar loops' bytes forward and backward",
          "[model][train][simd]") {
    const auto best = kernels::best_supported();
    using model::training::grad_mode;
    // LayerNorm and RMSNorm forward, backward added to and written, on rows not a multiple
    // of 16 and columns whole vectors (48) or not (40): every output, one vector.
    auto run = [](kernels::isa which, std::size_t C) {
        kernels::force(which);
        const std::size_t N = 70;
        std::vector<float> x(N * C), d(N * C), w(C), b(C);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * float(i)) + 0.1f, d[i] = std::cos(0.11f * float(i));
        for (std::size_t i = 0; i < C; ++i) w[i] = 1.0f + 0.01f * float(i), b[i] = 0.05f * float(i) - 0.3f;
        std::vector<float> out(N * C), normalized(N * C), mean(N), rstd(N), dx(N * C, 0.25f), dx_written(N * C, -7.0f);
        std::vector<float> dw(C, 0.5f), db(C, -0.5f);
        model::training::layer_norm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C,
                                            1e-5, normalized.data());
        model::training::layer_norm_backward(dx.data(), dw.data(), db.data(), d.data(), x.data(), w.data(), mean.data(),
                                             rstd.data(), N, C);
        model::training::layer_norm_backward(dx_written.data(), dw.data(), db.data(), d.data(), x.data(), w.data(),
                                             mean.data(), rstd.data(), N, C, grad_mode::write);
        std::vector<float> rout(N * C), rnorm(N * C), rrstd(N), rdx(N * C, 0.25f), rdx_written(N * C, -7.0f), rdw(C, 0.5f);
        model::llama::rms_norm_forward(rout.data(), rnorm.data(), rrstd.data(), x.data(), w.data(), N, C, 1e-6);
        model::llama::rms_norm_backward(rdx.data(), rdw.data(), d.data(), x.data(), w.data(), rrstd.data(), N, C);
        model::llama::rms_norm_backward(rdx_written.data(), rdw.data(), d.data(), x.data(), w.data(), rrstd.data(), N, C,
                                        grad_mode::write);
        std::vector<float> all;
        for (const auto* v : {&out, &normalized, &mean, &rstd, &dx, &dx_written, &dw, &db, &rout, &rnorm, &rrstd, &rdx,
                              &rdx_written, &rdw})
            all.insert(all.end(), v->begin(), v->end());
        return all;
    };
    for (std::size_t C : {48u, 40u}) {
        const std::vector<float> scalar = run(kernels::isa::generic, C), best_set = run(best, C);
        kernels::force(best);
        REQUIRE(scalar.size() == best_set.size());
        std::size_t bad = 0;
        for (std::size_t i = 0; i < scalar.size(); ++i)
            if (std::memcmp(&scalar[i], &best_set[i], sizeof(float)) != 0 && ++bad <= 5)
                FAIL_CHECK("C " << C << ", value " << i << ": scalar " << scalar[i] << ", vector " << best_set[i]);
        CHECK(bad == 0);
    }
    // Written is 0 + the gradient: the bytes of adding into zeros, whatever the buffer held.
    const std::size_t N = 16, C = 48;
    std::vector<float> x(N * C), d(N * C), w(C, 1.25f), rstd(N, 0.75f), dw(C, 0.0f), added(N * C, 0.0f),
        written(N * C, std::nanf(""));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.5f * float(i)), d[i] = std::cos(0.3f * float(i));
    model::llama::rms_norm_backward(added.data(), dw.data(), d.data(), x.data(), w.data(), rstd.data(), N, C);
    model::llama::rms_norm_backward(written.data(), dw.data(), d.data(), x.data(), w.data(), rstd.data(), N, C,
                                    grad_mode::write);
    CHECK(std::memcmp(added.data(), written.data(), added.size() * sizeof(float)) == 0);
}
