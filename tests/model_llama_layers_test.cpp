// The Llama family's layers (model/llama_layers): RMSNorm by hand and by finite
// differences, rotary embeddings against core/rope (lesson 17) and as a rotation (the
// backward undoes the forward), grouped-query attention against train_layers' multi-head
// attention with the key/value heads repeated, SwiGLU by finite differences, the KV-cache
// decoding step against the whole causal forward, and the same bits on 1 and 3 threads.
// The PyTorch autograd references are in tests/python/test_model_llama_layers.py.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "core/prng.hpp"
#include "core/rope.hpp"
#include "core/shape_error.hpp"
#include "model/llama_layers.hpp"
#include "model/train_layers.hpp"

namespace ll = attn::model::llama;
namespace tr = attn::model::training;

namespace {

std::vector<double> random_values(std::size_t n, std::uint64_t seed, double scale = 1.0) {
    attn::prng g(seed);
    std::vector<double> v(n);
    for (auto& x : v) x = g.normal(0.0, scale);
    return v;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
    REQUIRE(a.size() == b.size());
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
    return m;
}

// Central difference of f at p[i].
double numeric_grad(const std::function<double()>& f, double& p) {
    const double h = 1e-6, keep = p;
    p = keep + h;
    const double up = f();
    p = keep - h;
    const double down = f();
    p = keep;
    return (up - down) / (2 * h);
}

ll::rotary_spec spec(double theta, std::size_t dims, ll::rotary_pairing pairing) {
    ll::rotary_spec s;
    s.theta = theta;
    s.dims = dims;
    s.pairing = pairing;
    return s;
}

// How many entries of `three` (three threads) differ in their bits from `one`'s (one thread).
std::size_t entries_with_other_bits(const std::vector<double>& one, const std::vector<double>& three) {
    REQUIRE(one.size() == three.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < one.size(); ++i) differ += std::memcmp(&one[i], &three[i], sizeof(double)) != 0;
    return differ;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

}  // namespace

TEST_CASE("RMSNorm scales a row by the root of its mean square, and its gradients match finite differences",
          "[model][llama]") {
    const std::vector<double> x{1, 2, 3, 4}, w{1, 1, 2, 0.5};
    std::vector<double> out(4), normalized(4), rstd(1);
    ll::rms_norm_forward(out.data(), normalized.data(), rstd.data(), x.data(), w.data(), 1, 4, 0.0);
    const double r = 1 / std::sqrt(7.5);  // mean(1, 4, 9, 16) = 7.5
    CHECK(rstd[0] == Approx(r).epsilon(1e-15));
    CHECK(out[2] == Approx(3 * r * 2).epsilon(1e-15));
    CHECK(normalized[3] == Approx(4 * r).epsilon(1e-15));

    const std::size_t N = 3, C = 5;
    auto inp = random_values(N * C, 1), wr = random_values(C, 2), probe = random_values(N * C, 3);
    const auto loss = [&] {
        std::vector<double> o(N * C), rs(N);
        ll::rms_norm_forward(o.data(), nullptr, rs.data(), inp.data(), wr.data(), N, C, 1e-5);
        return dot(o, probe);
    };
    std::vector<double> o(N * C), rs(N), dx(N * C, 0.0), dw(C, 0.0);
    ll::rms_norm_forward(o.data(), nullptr, rs.data(), inp.data(), wr.data(), N, C, 1e-5);
    ll::rms_norm_backward(dx.data(), dw.data(), probe.data(), inp.data(), wr.data(), rs.data(), N, C);
    for (std::size_t i = 0; i < N * C; ++i) CHECK(dx[i] == Approx(numeric_grad(loss, inp[i])).margin(1e-7));
    for (std::size_t i = 0; i < C; ++i) CHECK(dw[i] == Approx(numeric_grad(loss, wr[i])).margin(1e-7));
}

TEST_CASE("Rotary embeddings with adjacent pairs give core rope's numbers, and the backward turns them back",
          "[model][llama]") {
    const std::size_t n = 6, dh = 8;
    const auto x = random_values(n * dh, 4);
    const auto tab = ll::make_rotary_table(spec(500.0, 0, ll::rotary_pairing::adjacent), dh, n);
    std::vector<double> out(n * dh);
    ll::rotary_forward(out.data(), x.data(), tab, 1, n, 1, 0);  // one head: [1, n, 1, dh]
    attn::matrix m = xt::zeros<double>({n, dh});
    for (std::size_t i = 0; i < n * dh; ++i) m(i / dh, i % dh) = x[i];
    const auto steps = attn::rotary_embed(m, 500.0);
    for (std::size_t i = 0; i < n * dh; ++i) CHECK(out[i] == Approx(steps.rotated(i / dh, i % dh)).margin(1e-15));

    // A rotation's transpose is its inverse: the backward of the output is the input.
    for (auto pairing : {ll::rotary_pairing::adjacent, ll::rotary_pairing::half_split}) {
        const auto part = ll::make_rotary_table(spec(10000.0, 4, pairing), dh, n + 2);
        std::vector<double> y(n * dh), back(n * dh, 0.0);
        ll::rotary_forward(y.data(), x.data(), part, 1, n, 1, 2);
        ll::rotary_backward(back.data(), y.data(), part, 1, n, 1, 2);
        CHECK(max_diff(back, x) < 1e-14);
        for (std::size_t t = 0; t < n; ++t)  // partial rotary: columns 4 … 7 pass through
            for (std::size_t j = 4; j < dh; ++j) CHECK(y[t * dh + j] == x[t * dh + j]);
    }
}

TEST_CASE("Half-split rotary is adjacent rotary on columns reordered, and positions can start later",
          "[model][llama]") {
    const std::size_t B = 2, n = 5, H = 3, dh = 6;
    const auto x = random_values(B * n * H * dh, 5);
    // Column i of a half-split head is column 2i of an adjacent one, column i + 3 is 2i + 1.
    std::vector<double> perm(x.size());
    for (std::size_t r = 0; r < B * n * H; ++r)
        for (std::size_t i = 0; i < dh / 2; ++i) {
            perm[r * dh + 2 * i] = x[r * dh + i];
            perm[r * dh + 2 * i + 1] = x[r * dh + i + dh / 2];
        }
    const auto half = ll::make_rotary_table(spec(10000.0, 0, ll::rotary_pairing::half_split), dh, 9);
    const auto adj = ll::make_rotary_table(spec(10000.0, 0, ll::rotary_pairing::adjacent), dh, 9);
    std::vector<double> yh(x.size()), ya(x.size());
    ll::rotary_forward(yh.data(), x.data(), half, B, n, H, 4);
    ll::rotary_forward(ya.data(), perm.data(), adj, B, n, H, 4);
    for (std::size_t r = 0; r < B * n * H; ++r)
        for (std::size_t i = 0; i < dh / 2; ++i) {
            CHECK(yh[r * dh + i] == ya[r * dh + 2 * i]);
            CHECK(yh[r * dh + i + dh / 2] == ya[r * dh + 2 * i + 1]);
        }
    // Position 0 turns nothing.
    std::vector<double> y0(H * dh);
    ll::rotary_forward(y0.data(), x.data(), half, 1, 1, H, 0);
    for (std::size_t i = 0; i < H * dh; ++i) CHECK(y0[i] == x[i]);

    CHECK_THROWS_AS(ll::make_rotary_table(spec(10000.0, 5, ll::rotary_pairing::adjacent), dh, 4), attn::shape_error);
    CHECK_THROWS_AS(ll::make_rotary_table(spec(10000.0, 8, ll::rotary_pairing::adjacent), dh, 4), attn::shape_error);
    CHECK_THROWS_AS(ll::make_rotary_table(spec(1.0, 0, ll::rotary_pairing::adjacent), dh, 4), attn::shape_error);
    CHECK_THROWS_AS(ll::rotary_forward(yh.data(), x.data(), half, B, n, H, 5), attn::shape_error);

    // Frequencies given (a checkpoint's rescaled ones): theta's own give the same table;
    // others turn pair i by p · frequency[i].
    auto given = spec(10000.0, 0, ll::rotary_pairing::half_split);
    for (std::size_t i = 0; i < dh / 2; ++i) given.frequencies.push_back(attn::rope_frequency(i, dh, 10000.0));
    const auto same = ll::make_rotary_table(given, dh, 9);
    CHECK(same.cos == half.cos);
    CHECK(same.sin == half.sin);
    given.frequencies = {0.5, 0.25, 0.0};
    const auto custom = ll::make_rotary_table(given, dh, 9);
    CHECK(custom.cos[3 * 3 + 1] == std::cos(3 * 0.25));
    CHECK(custom.sin[7 * 3 + 2] == 0.0);
    given.frequencies = {1.0};
    CHECK_THROWS_AS(ll::make_rotary_table(given, dh, 9), attn::shape_error);
}

namespace {
// Runs grouped-query attention and, for comparison, train_layers' multi-head attention
// on a fused [N, 3C] buffer with each key/value head repeated for its query heads.
struct gqa_case {
    std::size_t B = 2, Tn = 5, H = 4, KV = 2, dh = 3;
    std::vector<double> q, k, v, dz;
    gqa_case(std::size_t kv, std::size_t n) : Tn(n), KV(kv) {
        q = random_values(B * Tn * H * dh, 11);
        k = random_values(B * Tn * KV * dh, 12);
        v = random_values(B * Tn * KV * dh, 13);
        dz = random_values(B * Tn * H * dh, 14);
    }
};
}  // namespace

TEST_CASE("Grouped-query attention is multi-head attention with each key and value head repeated",
          "[model][llama]") {
    const std::size_t kv = GENERATE(4, 2, 1);
    const std::size_t n = GENERATE(5, 70);  // 70: more than one block of 64 query rows
    const gqa_case c(kv, n);
    const std::size_t B = c.B, Tn = c.Tn, H = c.H, dh = c.dh, C = H * dh, group = H / kv, maps = B * H * Tn * Tn;
    std::vector<double> z(B * Tn * C), scores(maps), pattern(maps), dq(z.size(), 0.0), dk(c.k.size(), 0.0),
        dv(c.k.size(), 0.0), dscores(maps), dpattern(maps);
    ll::gqa_attention_forward(z.data(), scores.data(), pattern.data(), c.q.data(), c.k.data(), c.v.data(), B, Tn, H,
                              kv, dh);
    ll::gqa_attention_backward(dq.data(), dk.data(), dv.data(), dscores.data(), dpattern.data(), c.dz.data(),
                               c.q.data(), c.k.data(), c.v.data(), pattern.data(), B, Tn, H, kv, dh);

    std::vector<double> qkv(B * Tn * 3 * C);  // [N, 3C]: q | k repeated | v repeated
    for (std::size_t r = 0; r < B * Tn; ++r)
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t i = 0; i < dh; ++i) {
                qkv[r * 3 * C + h * dh + i] = c.q[(r * H + h) * dh + i];
                qkv[r * 3 * C + C + h * dh + i] = c.k[(r * kv + h / group) * dh + i];
                qkv[r * 3 * C + 2 * C + h * dh + i] = c.v[(r * kv + h / group) * dh + i];
            }
    std::vector<double> z2(z.size()), s2(maps), p2(maps), dqkv(qkv.size(), 0.0), ds2(maps), dp2(maps);
    tr::attention_forward(z2.data(), s2.data(), p2.data(), qkv.data(), B, Tn, C, H);
    tr::attention_backward(dqkv.data(), ds2.data(), dp2.data(), c.dz.data(), qkv.data(), p2.data(), B, Tn, C, H);
    CHECK(max_diff(z, z2) < 1e-13);
    CHECK(max_diff(pattern, p2) < 1e-14);
    CHECK(max_diff(dscores, ds2) < 1e-13);
    CHECK(max_diff(dpattern, dp2) < 1e-13);
    for (std::size_t i = 0; i < maps; ++i)  // −∞ in the same places
        CHECK((std::isinf(scores[i]) ? scores[i] == s2[i] : std::abs(scores[i] - s2[i]) < 1e-13));
    // dk and dv of a key/value head are the sums over its query heads.
    std::vector<double> dq2(dq.size()), dk2(dk.size(), 0.0), dv2(dv.size(), 0.0);
    for (std::size_t r = 0; r < B * Tn; ++r)
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t i = 0; i < dh; ++i) {
                dq2[(r * H + h) * dh + i] = dqkv[r * 3 * C + h * dh + i];
                dk2[(r * kv + h / group) * dh + i] += dqkv[r * 3 * C + C + h * dh + i];
                dv2[(r * kv + h / group) * dh + i] += dqkv[r * 3 * C + 2 * C + h * dh + i];
            }
    CHECK(max_diff(dq, dq2) < 1e-13);
    CHECK(max_diff(dk, dk2) < 1e-13);
    CHECK(max_diff(dv, dv2) < 1e-13);
    std::vector<double> z_alone(z.size());  // the stages not kept: the same z
    ll::gqa_attention_forward(z_alone.data(), nullptr, nullptr,
                              c.q.data(), c.k.data(), c.v.data(), B, Tn, H, kv, dh);
    CHECK(z_alone == z);
    CHECK_THROWS_AS(ll::gqa_attention_forward(z.data(), scores.data(), pattern.data(), c.q.data(), c.k.data(),
                                              c.v.data(), B, Tn, H, std::size_t{3}, dh),
                    attn::shape_error);
}

TEST_CASE("The SwiGLU MLP's gradients match finite differences, with and without biases", "[model][llama]") {
    const bool biases = GENERATE(true, false);
    const std::size_t N = 3, C = 4, F = 6;
    auto x = random_values(N * C, 21), wg = random_values(C * F, 22, 0.5), wu = random_values(C * F, 23, 0.5),
         wd = random_values(F * C, 24, 0.5), bg = random_values(F, 25), bu = random_values(F, 26),
         bd = random_values(C, 27), probe = random_values(N * C, 28);
    const auto weights = [&] {
        return ll::swiglu_weights<double>{wg.data(), biases ? bg.data() : nullptr, wu.data(),
                                          biases ? bu.data() : nullptr, wd.data(), biases ? bd.data() : nullptr};
    };
    std::vector<double> out(N * C), gate(N * F), up(N * F), post(N * F);
    const auto loss = [&] {
        ll::swiglu_forward(out.data(), gate.data(), up.data(), post.data(), x.data(), weights(), N, C, F);
        return dot(out, probe);
    };
    loss();
    for (std::size_t i = 0; i < N * F; ++i)
        CHECK(post[i] == Approx(gate[i] / (1 + std::exp(-gate[i])) * up[i]).epsilon(1e-14));
    std::vector<double> dx(N * C, 0.0), dwg(C * F, 0.0), dwu(C * F, 0.0), dwd(F * C, 0.0), dbg(F, 0.0), dbu(F, 0.0),
        dbd(C, 0.0), scratch(3 * N * F);
    const ll::swiglu_grads<double> g{dwg.data(), biases ? dbg.data() : nullptr, dwu.data(),
                                     biases ? dbu.data() : nullptr, dwd.data(), biases ? dbd.data() : nullptr};
    ll::swiglu_backward(dx.data(), g, scratch.data(), probe.data(), x.data(), gate.data(), up.data(), post.data(),
                        weights(), N, C, F);
    const auto check = [&](const std::vector<double>& grad, std::vector<double>& param) {
        for (std::size_t i = 0; i < param.size(); ++i)
            CHECK(grad[i] == Approx(numeric_grad(loss, param[i])).margin(1e-7));
    };
    check(dx, x);
    check(dwg, wg);
    check(dwu, wu);
    check(dwd, wd);
    if (biases) {
        check(dbg, bg);
        check(dbu, bu);
        check(dbd, bd);
    }
}

TEST_CASE("Decoding token by token with a KV cache equals the whole causal forward", "[model][llama]") {
    const auto pairing = GENERATE(ll::rotary_pairing::adjacent, ll::rotary_pairing::half_split);
    const std::size_t kv = GENERATE(4, 2, 1);
    const std::size_t B = 2, Tn = 7, H = 4, dh = 6, maps = B * H * Tn * Tn;
    const auto q = random_values(B * Tn * H * dh, 31), k = random_values(B * Tn * kv * dh, 32),
               v = random_values(B * Tn * kv * dh, 33);
    const auto tab = ll::make_rotary_table(spec(10000.0, 4, pairing), dh, Tn);
    std::vector<double> rq(q.size()), rk(k.size()), z(q.size()), scores(maps), pattern(maps);
    ll::rotary_forward(rq.data(), q.data(), tab, B, Tn, H, 0);
    ll::rotary_forward(rk.data(), k.data(), tab, B, Tn, kv, 0);
    ll::gqa_attention_forward(z.data(), scores.data(), pattern.data(), rq.data(), rk.data(), v.data(), B, Tn, H, kv,
                              dh);

    auto cache = ll::make_kv_cache<double>(B, Tn, kv, dh);
    double worst = 0;
    for (std::size_t t = 0; t < Tn; ++t) {
        std::vector<double> qt(B * H * dh), kt(B * kv * dh), vt(B * kv * dh);  // [B, H, dh], [B, KV, dh]
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t i = 0; i < H * dh; ++i) {
                qt[b * H * dh + i] = q[(b * Tn + t) * H * dh + i];
                if (i < kv * dh) {
                    kt[b * kv * dh + i] = k[(b * Tn + t) * kv * dh + i];
                    vt[b * kv * dh + i] = v[(b * Tn + t) * kv * dh + i];
                }
            }
        std::vector<double> zt(B * H * dh), rt(B * H * dh), st(B * H * (t + 1)), at(B * H * (t + 1));
        auto bare = cache;  // the same step keeping neither scores nor pattern
        std::vector<double> zb(zt.size()), rb(rt.size());
        ll::gqa_decode_step(zb.data(), nullptr, nullptr, rb.data(), bare,
                            qt.data(), kt.data(), vt.data(), tab, H);
        ll::gqa_decode_step(zt.data(), st.data(), at.data(), rt.data(), cache, qt.data(), kt.data(), vt.data(), tab, H);
        REQUIRE(cache.length == t + 1);
        CHECK(zb == zt);
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t h = 0; h < H; ++h) {
                for (std::size_t i = 0; i < dh; ++i) {
                    worst = std::max(worst, std::abs(zt[(b * H + h) * dh + i] - z[((b * Tn + t) * H + h) * dh + i]));
                    worst = std::max(worst, std::abs(rt[(b * H + h) * dh + i] - rq[((b * Tn + t) * H + h) * dh + i]));
                }
                for (std::size_t u = 0; u <= t; ++u) {
                    const std::size_t full = ((b * H + h) * Tn + t) * Tn + u, step = (b * H + h) * (t + 1) + u;
                    worst = std::max(worst, std::abs(at[step] - pattern[full]));
                    worst = std::max(worst, std::abs(st[step] - scores[full]));
                }
            }
    }
    CHECK(worst < 1e-12);
    std::vector<double> one(B * H * dh), row(B * H * Tn);
    CHECK_THROWS_AS(ll::gqa_decode_step(one.data(), row.data(), row.data(), one.data(), cache, q.data(), k.data(),
                                        v.data(), tab, H),
                    attn::shape_error);  // the cache is full
}

TEST_CASE("Decoding past decode_parallel_bytes of cache splits by key/value head with the same bits on one thread and on three",
          "[model][llama]") {
    // B 2, KV 2, dh 64, float64: the cache read passes 512 KiB at 256 positions, so the
    // last steps run one task per (batch row, key/value head), the first ones one task.
    const std::size_t B = 2, Tn = 300, H = 4, kv = 2, dh = 64, maps = B * H * Tn * Tn;
    REQUIRE(B * kv * Tn * dh * 2 * sizeof(double) > ll::decode_parallel_bytes);
    const auto q = random_values(B * Tn * H * dh, 61), k = random_values(B * Tn * kv * dh, 62),
               v = random_values(B * Tn * kv * dh, 63);
    const auto tab = ll::make_rotary_table(spec(10000.0, 0, ll::rotary_pairing::adjacent), dh, Tn);
    const auto run = [&](unsigned threads) {
        tr::set_threads(threads);
        auto cache = ll::make_kv_cache<double>(B, Tn, kv, dh);
        std::vector<double> all;  // [Tn, B, H, dh] every step's z
        for (std::size_t t = 0; t < Tn; ++t) {
            std::vector<double> qt(B * H * dh), kt(B * kv * dh), vt(B * kv * dh), zt(B * H * dh), rt(B * H * dh);
            for (std::size_t b = 0; b < B; ++b) {
                std::copy_n(q.data() + (b * Tn + t) * H * dh, H * dh, qt.data() + b * H * dh);
                std::copy_n(k.data() + (b * Tn + t) * kv * dh, kv * dh, kt.data() + b * kv * dh);
                std::copy_n(v.data() + (b * Tn + t) * kv * dh, kv * dh, vt.data() + b * kv * dh);
            }
            ll::gqa_decode_step(zt.data(), nullptr, nullptr, rt.data(), cache, qt.data(), kt.data(), vt.data(), tab, H);
            all.insert(all.end(), zt.begin(), zt.end());
        }
        return all;
    };
    const auto one = run(1), three = run(3);
    tr::set_threads(1);
    CHECK(entries_with_other_bits(one, three) == 0);
    std::vector<double> rq(q.size()), rk(k.size()), z(q.size()), scores(maps), pattern(maps);  // the whole causal forward
    ll::rotary_forward(rq.data(), q.data(), tab, B, Tn, H, 0);
    ll::rotary_forward(rk.data(), k.data(), tab, B, Tn, kv, 0);
    ll::gqa_attention_forward(z.data(), scores.data(), pattern.data(), rq.data(), rk.data(), v.data(), B, Tn, H, kv, dh);
    double worst = 0;
    for (std::size_t t = 0; t < Tn; ++t)
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t i = 0; i < H * dh; ++i)
                worst = std::max(worst, std::abs(three[(t * B + b) * H * dh + i] - z[(b * Tn + t) * H * dh + i]));
    CHECK(worst < 1e-12);
}

TEST_CASE("The Llama layers give the same bits on one thread and on three", "[model][llama]") {
    const std::size_t B = 3, Tn = 70, H = 4, kv = 2, dh = 8, C = 32, F = 48, N = B * Tn, maps = B * H * Tn * Tn;
    const auto q = random_values(N * H * dh, 41), k = random_values(N * kv * dh, 42),
               v = random_values(N * kv * dh, 43),
               dz = random_values(N * H * dh, 44), x = random_values(N * C, 45), w = random_values(C, 46),
               wg = random_values(C * F, 47), wu = random_values(C * F, 48), wd = random_values(F * C, 49),
               bg = random_values(F, 50);
    const auto tab = ll::make_rotary_table(spec(10000.0, 0, ll::rotary_pairing::half_split), dh, Tn);
    const auto run = [&](unsigned threads) {
        tr::set_threads(threads);
        std::vector<double> all, rq(q.size()), z(q.size()), s(maps), p(maps), dq(q.size(), 0.0), dk(k.size(), 0.0),
            dv(k.size(), 0.0), ds(maps), dp(maps), o(N * C), rs(N), dx(N * C, 0.0), dw(C, 0.0), g(N * F), u(N * F),
            po(N * F), mo(N * C), dmx(N * C, 0.0), dwg(C * F, 0.0), dwu(C * F, 0.0), dwd(F * C, 0.0), dbg(F, 0.0),
            scratch(3 * N * F);
        ll::rotary_forward(rq.data(), q.data(), tab, B, Tn, H, 0);
        ll::gqa_attention_forward(z.data(), s.data(), p.data(), rq.data(), k.data(), v.data(), B, Tn, H, kv, dh);
        ll::gqa_attention_backward(dq.data(), dk.data(), dv.data(), ds.data(), dp.data(), dz.data(), rq.data(),
                                   k.data(), v.data(), p.data(), B, Tn, H, kv, dh);
        ll::rms_norm_forward(o.data(), nullptr, rs.data(), x.data(), w.data(), N, C, 1e-6);
        ll::rms_norm_backward(dx.data(), dw.data(), o.data(), x.data(), w.data(), rs.data(), N, C);
        const ll::swiglu_weights<double> sw{wg.data(), bg.data(), wu.data(), nullptr, wd.data(), nullptr};
        ll::swiglu_forward(mo.data(), g.data(), u.data(), po.data(), o.data(), sw, N, C, F);
        ll::swiglu_backward(dmx.data(), {dwg.data(), dbg.data(), dwu.data(), nullptr, dwd.data(), nullptr},
                            scratch.data(), x.data(), o.data(), g.data(), u.data(), po.data(), sw, N, C, F);
        for (const auto* part : {&z, &p, &dq, &dk, &dv, &o, &dx, &dw, &mo, &dmx, &dwg, &dwu, &dwd, &dbg})
            all.insert(all.end(), part->begin(), part->end());
        return all;
    };
    const auto one = run(1), three = run(3);
    tr::set_threads(1);
    CHECK(entries_with_other_bits(one, three) == 0);
}
