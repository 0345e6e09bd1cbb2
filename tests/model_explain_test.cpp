// The score decomposition and direct logit attribution of model/explain, as properties
// on random tiny GPT-2-family models: for every layer, head, query and key the terms sum
// to the forward's own score (1e-10 in float64, 1e-5 relative in float32); the residual
// components sum to hook_resid_pre; the per-component DLA sums to the logit; a head's
// per-key writes sum to its output. The shipped lesson models (induction, sort): every
// score, float64 and float32. (The PyTorch reference is test_model_explain.py.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/prng.hpp"
#include "model/checkpoint.hpp"
#include "model/explain.hpp"
#include "model/init.hpp"
#include "support/model_random.hpp"

using namespace attn::model;
using attn::testing::perturbed_params;
using attn::testing::random_tokens;

namespace {

architecture tiny(bool mlp, bool tied, std::size_t layers, std::size_t heads) {
    architecture c;
    c.n_layer = layers;
    c.n_head = heads;
    c.n_embd = 4 * heads;
    c.vocab_size = 11;
    c.n_positions = 9;
    c.mlp = mlp ? mlp_kind::gelu_tanh : mlp_kind::none;
    c.tied = tied;
    return c;
}

template <class T>
void check_every_score(const architecture& c, std::uint64_t seed, double tol, bool relative) {
    const auto p = perturbed_params<T>(c, seed, 0.4);
    const auto r = record_run(p, random_tokens(c.n_positions, c.vocab_size, seed + 7));
    double worst = 0;
    std::size_t count = 0;
    for (std::size_t l = 0; l < c.n_layer; ++l)
        for (std::size_t h = 0; h < c.n_head; ++h)
            for (std::size_t q = 0; q < c.n_positions; ++q)
                for (std::size_t k = 0; k <= q; ++k) {
                    const auto d = explain_score(p, r, l, h, q, k);
                    const double err = std::abs(d.sum - d.model_score) / (relative ? std::max(1.0, std::abs(d.model_score)) : 1.0);
                    worst = std::max(worst, err);
                    ++count;
                    REQUIRE(d.terms.size() == d.components.size());
                }
    INFO("scores checked: " << count << ", worst error " << worst);
    CHECK(count == c.n_layer * c.n_head * c.n_positions * (c.n_positions + 1) / 2);
    CHECK(worst <= tol);
}

// Every score of a model on given tokens against the sum of its terms.
template <class T>
double worst_score_error(const model_params<T>& p, const std::vector<int>& tokens, bool relative) {
    const auto r = record_run(p, tokens);
    double worst = 0;
    for (std::size_t l = 0; l < p.config.n_layer; ++l)
        for (std::size_t h = 0; h < p.config.n_head; ++h)
            for (std::size_t q = 0; q < tokens.size(); ++q)
                for (std::size_t k = 0; k <= q; ++k) {
                    const auto d = explain_score(p, r, l, h, q, k);
                    worst = std::max(worst, std::abs(d.sum - d.model_score) / (relative ? std::max(1.0, std::abs(d.model_score)) : 1.0));
                }
    return worst;
}

}  // namespace

TEST_CASE("Every score of the shipped lesson models is the sum of its terms", "[model][explain]") {
    const std::string dir = std::string(ATTN_SOURCE_DIR) + "/lessons/models/";
    const std::vector<int> induction{0, 5, 17, 33, 9, 41, 22, 8, 60, 3, 14, 5, 17, 33, 9, 41, 22, 8, 60, 3, 14};
    const std::vector<int> sort{2, 0, 1, 1, 0, 2, 0, 0, 1, 1, 2};
    for (const auto& [file, tokens] : {std::pair<std::string, std::vector<int>>{"induction.safetensors", induction},
                                       {"sort.safetensors", sort}}) {
        INFO(file);
        CHECK(worst_score_error(read_checkpoint<double>(dir + file), tokens, false) <= 1e-10);
        CHECK(worst_score_error(read_checkpoint<float>(dir + file), tokens, true) <= 1e-5);
    }
}

TEST_CASE("Every score of random tiny models is the sum of its terms in float64", "[model][explain]") {
    const bool mlp = GENERATE(true, false);
    const bool tied = GENERATE(true, false);
    for (std::uint64_t seed : {1u, 2u, 3u}) check_every_score<double>(tiny(mlp, tied, 3, 2), seed, 1e-10, false);
}

TEST_CASE("Every score of random tiny models is the sum of its terms in float32", "[model][explain]") {
    check_every_score<float>(tiny(true, false, 3, 2), 5, 1e-5, true);
}

TEST_CASE("A difference of two scores is the sum of its terms", "[model][explain]") {
    const auto c = tiny(true, true, 2, 2);
    const auto p = perturbed_params<double>(c, 51, 0.4);
    const auto r = record_run(p, random_tokens(6, c.vocab_size, 52));
    for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t q = 0; q < 6; ++q)
            for (std::size_t k = 0; k <= q; ++k)
                for (std::size_t k2 = 0; k2 <= q; ++k2) {
                    const auto d = explain_difference(p, r, 1, h, q, k, k2);
                    const auto a = explain_score(p, r, 1, h, q, k), b = explain_score(p, r, 1, h, q, k2);
                    CHECK(std::abs(d.sum - (a.model_score - b.model_score)) <= 1e-10);
                    CHECK(d.model_score == a.model_score - b.model_score);
                }
}

TEST_CASE("The residual components sum to hook_resid_pre and the DLA to the logit", "[model][explain]") {
    const bool mlp = GENERATE(true, false);
    const auto c = tiny(mlp, false, 2, 3);
    const auto p = perturbed_params<double>(c, 11, 0.4);
    const auto r = record_run(p, random_tokens(7, c.vocab_size, 12));
    for (std::size_t l = 0; l <= c.n_layer; ++l) {
        const std::string name = l == c.n_layer ? "blocks." + std::to_string(l - 1) + ".hook_resid_post"
                                                : "blocks." + std::to_string(l) + ".hook_resid_pre";
        const double* resid = stage_of(c, r.acts, name).data;
        for (std::size_t pos = 0; pos < 7; ++pos) {
            const auto comps = residual_components(p, r, l, pos);
            CHECK(comps.size() == 3 + l * (c.n_head + (mlp ? 1 : 0)));
            for (std::size_t i = 0; i < c.n_embd; ++i) {
                double s = 0;
                for (const auto& comp : comps) s += comp.value[i];
                CHECK(std::abs(s - resid[pos * c.n_embd + i]) <= 1e-12);
            }
        }
    }
    for (std::size_t pos = 0; pos < 7; ++pos)
        for (std::size_t t = 0; t < c.vocab_size; ++t) {
            const auto a = attribute_logit(p, r, pos, t);
            double s = 0;
            for (double v : a.values) s += v;
            CHECK(std::abs(s - a.model_logit) <= 1e-10);
        }
}

TEST_CASE("A head's per-key writes sum to its output, whose DLA matches the component's", "[model][explain]") {
    const auto c = tiny(true, true, 2, 2);
    const auto p = perturbed_params<double>(c, 21, 0.4);
    const auto r = record_run(p, random_tokens(8, c.vocab_size, 22));
    for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t q = 0; q < 8; ++q) {
            const auto ws = head_writes(p, r, 0, h, q);
            REQUIRE(ws.size() == q + 1);
            const auto comps = residual_components(p, r, 1, q);
            const auto& head = comps[2 + h].value;  // embed, pos_embed, then blocks.0.attn.head.h
            REQUIRE(comps[2 + h].name == "blocks.0.attn.head." + std::to_string(h));
            double weights = 0;
            for (const auto& w : ws) weights += w.weight;
            CHECK(std::abs(weights - 1.0) <= 1e-12);
            for (std::size_t i = 0; i < c.n_embd; ++i) {
                double s = 0;
                for (const auto& w : ws) s += w.value[i];
                CHECK(std::abs(s - head[i]) <= 1e-12);
            }
        }
}

TEST_CASE("train_forward with a patch that changes nothing gives the same bits", "[model][explain]") {
    const auto c = tiny(true, false, 2, 2);
    const auto p = perturbed_params<float>(c, 31, 0.4);
    const auto tokens = random_tokens(9, c.vocab_size, 32);
    const auto plain = record_run(p, tokens);
    std::vector<std::string> seen;
    const stage_patch<float> noop = [&](const std::string& stage, float*) { seen.push_back(stage); };
    const auto patched = record_run(p, tokens, &noop);
    CHECK(seen == std::vector<std::string>{"blocks.0.hook_resid_pre", "blocks.0.attn.hook_z", "blocks.1.hook_resid_pre",
                                           "blocks.1.attn.hook_z"});
    CHECK(plain.acts.logits == patched.acts.logits);
    CHECK(plain.loss == patched.loss);
}

TEST_CASE("Explaining a masked key or a missing head is refused", "[model][explain]") {
    const auto c = tiny(false, true, 1, 2);
    const auto p = perturbed_params<double>(c, 41, 0.4);
    const auto r = record_run(p, random_tokens(5, c.vocab_size, 42));
    CHECK_THROWS_AS(explain_score(p, r, 0, 0, 2, 3), attn::error);
    CHECK_THROWS_AS(explain_score(p, r, 1, 0, 2, 1), attn::error);
    CHECK_THROWS_AS(explain_score(p, r, 0, 2, 2, 1), attn::error);
    CHECK_THROWS_AS(explain_score(p, r, 0, 0, 5, 1), attn::error);
    CHECK_THROWS_AS(record_run(p, std::vector<int>{1, 11}), attn::error);
    CHECK_THROWS_AS(attribute_logit(p, r, 0, 11), attn::error);
}
