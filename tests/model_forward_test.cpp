// tests/model_forward_test.cpp — the GPT forward (model/traced_forward) against a reference
// assembled from core's lesson implementations (core/layer_norm, core/attention with
// causal_mask, core/ffn with the tanh GELU), which share no code with model/layers:
// every hook of random tiny models, tied and untied, with and without MLP, in float64
// to 1e-12 and float32 to 1e-5. PyTorch checks the same in tests/python/test_model_forward.py.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <stdexcept>

#include "core/error.hpp"
#include "core/attention.hpp"
#include "core/ffn.hpp"
#include "core/layer_norm.hpp"
#include "core/mask.hpp"
#include "model/traced_forward.hpp"
#include "model/hooks.hpp"

using namespace attn;
using namespace attn::model;

namespace {

model_params<double> random_model(bool has_mlp, bool tied, unsigned seed) {
    architecture c;
    c.n_layer = 2;
    c.n_head = 2;
    c.n_embd = 8;
    c.vocab_size = 11;
    c.n_positions = 7;
    c.mlp = has_mlp ? mlp_kind::gelu_tanh : mlp_kind::none;
    c.tied = tied;
    auto p = zero_params<double>(c);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-0.6, 0.6);
    for_each_param(p, [&](const std::string&, param_kind kind, auto& t) {
        for (auto& x : t) x = kind == param_kind::norm ? 1.0 + u(rng) : u(rng);
    });
    return p;
}

template <class T>
model_params<T> cast_params(const model_params<double>& p) {
    auto q = zero_params<T>(p.config);
    auto src = p;  // for_each_param walks both in the same order
    std::vector<std::vector<double>> flat;
    for_each_param(src, [&](const std::string&, param_kind, auto& t) { flat.emplace_back(t.begin(), t.end()); });
    std::size_t i = 0;
    for_each_param(q, [&](const std::string&, param_kind, auto& t) {
        std::copy(flat[i].begin(), flat[i].end(), t.begin());
        ++i;
    });
    return q;
}

matrix add_bias(matrix m, const double* bias) {
    for (std::size_t i = 0; i < m.shape(0); ++i)
        for (std::size_t j = 0; j < m.shape(1); ++j) m(i, j) += bias[j];
    return m;
}

matrix columns(const param2<double>& w, std::size_t c0, std::size_t n) {
    matrix m = matrix::from_shape({w.shape(0), n});
    for (std::size_t i = 0; i < w.shape(0); ++i)
        for (std::size_t j = 0; j < n; ++j) m(i, j) = w(i, c0 + j);
    return m;
}

layer_norm_params ln_params(const param1<double>& w, const param1<double>& b, double eps) {
    layer_norm_params lp;
    lp.gamma = vector(w);
    lp.beta = vector(b);
    lp.eps = eps;
    return lp;
}

// Compares the forward's hook `name` for batch item b, with `expect` laid out [pos, …].
void check_rows(const forward_acts<double>& a, const architecture& c, const std::string& name, std::size_t b,
                const matrix& expect, double tol) {
    std::vector<std::size_t> shape;
    const double* got = hook_data(a, find_hook(c, name), &shape);
    INFO(name << " batch " << b);
    REQUIRE(got != nullptr);
    const std::size_t per_item = expect.size();
    for (std::size_t i = 0; i < per_item; ++i) REQUIRE_THAT(got[b * per_item + i], Catch::Matchers::WithinAbs(expect.data()[i], tol));
}

}  // namespace

TEST_CASE("The GPT forward keeps every hook as core's layer norm, causal attention and GELU FFN compute it",
          "[model][forward]") {
    const bool has_mlp = GENERATE(true, false);
    const bool tied = GENERATE(true, false);
    const auto p = random_model(has_mlp, tied, 7u + (has_mlp ? 1u : 0u) + (tied ? 2u : 0u));
    const architecture& c = p.config;
    const std::vector<std::vector<int>> tokens = {{3, 1, 4, 1, 5}, {9, 2, 6, 5, 10}};
    const auto a = trace_stages(p, tokens);
    const std::size_t P = 5, d = c.n_embd, H = c.n_head, dh = c.d_head();
    REQUIRE(a.batch == 2);
    REQUIRE(a.n_pos == P);
    const double tol = 1e-12;
    for (std::size_t b = 0; b < tokens.size(); ++b) {
        matrix x = matrix::from_shape({P, d});
        for (std::size_t i = 0; i < P; ++i)
            for (std::size_t j = 0; j < d; ++j) x(i, j) = p.wte(tokens[b][i], j) + p.wpe(i, j);
        for (std::size_t l = 0; l < c.n_layer; ++l) {
            const auto& w = p.blocks[l];
            const std::string L = "blocks." + std::to_string(l) + ".";
            check_rows(a, c, L + "hook_resid_pre", b, x, tol);
            const auto ln1 = layer_norm(x, ln_params(w.ln1_w, w.ln1_b, c.ln_eps));
            check_rows(a, c, L + "ln1.hook_normalized", b, ln1.normalized, tol);
            const matrix q = add_bias(matmul(ln1.output, columns(w.w_qkv, 0, d)), w.b_qkv.data());
            const matrix k = add_bias(matmul(ln1.output, columns(w.w_qkv, d, d)), w.b_qkv.data() + d);
            const matrix v = add_bias(matmul(ln1.output, columns(w.w_qkv, 2 * d, d)), w.b_qkv.data() + 2 * d);
            check_rows(a, c, L + "attn.hook_q", b, q, tol);  // [pos, head·d_head] = [pos, head, d_head]
            check_rows(a, c, L + "attn.hook_k", b, k, tol);
            check_rows(a, c, L + "attn.hook_v", b, v, tol);
            matrix z = matrix::from_shape({P, d});
            std::vector<std::size_t> shape;
            const double* scores = hook_data(a, find_hook(c, L + "attn.hook_attn_scores"), &shape);
            const double* pattern = hook_data(a, find_hook(c, L + "attn.hook_pattern"), &shape);
            REQUIRE(shape == std::vector<std::size_t>{2, H, P, P});
            for (std::size_t h = 0; h < H; ++h) {
                attention_options o;
                o.mask = causal_mask(P, P);
                const auto s = scaled_dot_product_attention(columns(q, h * dh, dh), columns(k, h * dh, dh),
                                                            columns(v, h * dh, dh), o);
                for (std::size_t i = 0; i < P; ++i)
                    for (std::size_t j = 0; j < P; ++j) {
                        const std::size_t at = ((b * H + h) * P + i) * P + j;
                        if (j > i) CHECK(std::isinf(scores[at]));
                        else CHECK_THAT(scores[at], Catch::Matchers::WithinAbs(s.scores_masked(i, j), tol));
                        CHECK_THAT(pattern[at], Catch::Matchers::WithinAbs(s.weights(i, j), tol));
                    }
                for (std::size_t i = 0; i < P; ++i)
                    for (std::size_t j = 0; j < dh; ++j) z(i, h * dh + j) = s.output(i, j);
            }
            check_rows(a, c, L + "attn.hook_z", b, z, tol);
            const matrix attn_out = add_bias(matmul(z, w.w_out), w.b_out.data());
            check_rows(a, c, L + "hook_attn_out", b, attn_out, tol);
            x = x + attn_out;
            if (has_mlp) {
                check_rows(a, c, L + "hook_resid_mid", b, x, tol);
                const auto ln2 = layer_norm(x, ln_params(w.ln2_w, w.ln2_b, c.ln_eps));
                check_rows(a, c, L + "ln2.hook_normalized", b, ln2.normalized, tol);
                ffn_weights f{w.w_fc, w.b_fc, w.w_proj, w.b_proj, activation::gelu_tanh};
                const auto ff = feed_forward(ln2.output, f);
                check_rows(a, c, L + "mlp.hook_pre", b, ff.hidden_pre, tol);
                check_rows(a, c, L + "mlp.hook_post", b, ff.hidden, tol);
                check_rows(a, c, L + "hook_mlp_out", b, ff.output, tol);
                x = x + ff.output;
            } else {
                CHECK(find_hook(c, L + "hook_resid_mid").info == nullptr);
                CHECK(find_hook(c, L + "mlp.hook_pre").info == nullptr);
            }
            check_rows(a, c, L + "hook_resid_post", b, x, tol);
        }
        const auto lnf = layer_norm(x, ln_params(p.lnf_w, p.lnf_b, c.ln_eps));
        check_rows(a, c, "ln_final.hook_normalized", b, lnf.normalized, tol);
        const matrix logits = matmul(lnf.output, tied ? p.wte : p.lm_head, true);
        check_rows(a, c, "logits", b, logits, 1e-11);
        check_rows(a, c, "probs", b, softmax_rows(logits), tol);
    }
}

TEST_CASE("The float32 forward agrees with the float64 forward to 1e-5 on every hook", "[model][forward]") {
    const auto p = random_model(true, GENERATE(true, false), 3u);
    const auto p32 = cast_params<float>(p);
    const std::vector<std::vector<int>> tokens = {{0, 10, 4, 4, 2, 7, 1}};
    const auto a = trace_stages(p, tokens);
    const auto a32 = trace_stages(p32, tokens);
    const auto names = hook_names(p.config);
    REQUIRE(names.size() == 2 + 2 * 15 + 3);
    for (const auto& h : names) {
        std::vector<std::size_t> s64, s32;
        const double* x = hook_data(a, h, &s64);
        const float* y = hook_data(a32, h, &s32);
        INFO(h.name);
        REQUIRE(x != nullptr);
        REQUIRE(y != nullptr);
        REQUIRE(s64 == s32);
        std::size_t n = 1;
        for (auto e : s64) n *= e;
        for (std::size_t i = 0; i < n; ++i) {
            if (std::isinf(x[i])) {
                REQUIRE(std::isinf(y[i]));
                continue;
            }
            REQUIRE_THAT(static_cast<double>(y[i]), Catch::Matchers::WithinAbs(x[i], 1e-5));
        }
    }
}

TEST_CASE("The forward refuses a batch it cannot run and says which sequence and token", "[model][forward]") {
    const auto p = random_model(false, true, 1u);
    const auto refuses = [&](const std::vector<std::vector<int>>& t, const std::string& words) {
        try {
            trace_stages(p, t);
            FAIL("accepted");
        } catch (const attn::error& e) {
            INFO(e.what());
            CHECK(std::string(e.what()).find(words) != std::string::npos);
        }
    };
    refuses({}, "no tokens");
    refuses({{1, 2}, {3}}, "sequence 2: 1 tokens, but sequence 1 has 2");
    refuses({{1, 2, 3, 4, 5, 6, 7, 8}}, "8 tokens, but the model has 7 positions");
    refuses({{1, 11}}, "token 2 is 11, outside the vocabulary 0 … 10");
    refuses({{-1}}, "token 1 is -1");
}
