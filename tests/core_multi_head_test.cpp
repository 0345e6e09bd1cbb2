// tests/core_multi_head_test.cpp — multi-head attention stage by stage against an
// independent NumPy computation (tests/data/core_multi_head_reference.txt, made and
// re-checked by tests/python/core_multi_head_reference.py / test_core_multi_head.py),
// plus the reshape convention, per-head results and shape errors.
#include <catch2/catch.hpp>

#include <xtensor/xview.hpp>

#include "core/mask.hpp"
#include "core/multi_head.hpp"
#include "core/shape_error.hpp"
#include "support/core_reference_data.hpp"
#include "support/shared_example.hpp"

using namespace attn;
using attn::testing::check_all_close;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;

namespace {
const attn::testing::reference_data& heads_ref() {
    static const attn::testing::reference_data d("core_multi_head_reference.txt");
    return d;
}
multi_head_weights weights_of(const std::string& c, std::size_t heads) {
    const auto& r = heads_ref();
    return {r.mat(c + ".w_q"), r.mat(c + ".w_k"), r.mat(c + ".w_v"), r.mat(c + ".w_o"), heads};
}
}  // namespace

TEST_CASE("causal multi-head self-attention matches NumPy at every stage", "[core]") {
    attention_options o;
    o.mask = causal_mask(4, 4);
    const auto s = multi_head_self_attention(heads_ref().mat("self.x"), weights_of("self", 2), o);
    CHECK(s.heads == 2);
    CHECK(s.d_k == 3);
    CHECK(s.d_v == 3);
    check_all_close(s.q, heads_ref().mat("self.q"), 1e-12, "Q");
    check_all_close(s.weights(), heads_ref().t3("self.weights"), 1e-12, "weights per head");
    const tensor3 z_ref = heads_ref().t3("self.z");
    for (std::size_t h = 0; h < 2; ++h)
        check_all_close(s.head[h].output, matrix(xt::view(z_ref, h, xt::all(), xt::all())), 1e-12, "head output");
    check_all_close(s.concat, heads_ref().mat("self.concat"), 1e-12, "concat");
    check_all_close(s.output, heads_ref().mat("self.output"), 1e-12, "output");
    check_all_close(s.head_results, heads_ref().t3("self.head_results"), 1e-12, "per-head results");
    // The future stays invisible in every head.
    CHECK(s.head[0].weights(0, 1) == 0.0);
    CHECK(s.head[1].weights(2, 3) == 0.0);
}

TEST_CASE("cross multi-head attention with d_k unlike d_v, padding and bias matches NumPy", "[core]") {
    attention_options o;
    o.mask = padding_mask(3, {false, false, false, false, true});
    o.bias = heads_ref().mat("cross.bias");
    const auto s =
        multi_head_attention(heads_ref().mat("cross.x_q"), heads_ref().mat("cross.x_kv"), weights_of("cross", 2), o);
    CHECK(s.d_k == 3);
    CHECK(s.d_v == 2);
    CHECK(s.head[0].scale == std::sqrt(3.0));  // √d_k of one head, not of d_model
    check_all_close(s.weights(), heads_ref().t3("cross.weights"), 1e-12, "weights");
    check_all_close(s.output, heads_ref().mat("cross.output"), 1e-12, "output");
    check_all_close(s.head_results, heads_ref().t3("cross.head_results"), 1e-12, "per-head results");
}

TEST_CASE("a batch of items gives each item's multi-head output", "[core]") {
    const auto b =
        multi_head_attention_batched(heads_ref().t3("batch.x"), heads_ref().t3("batch.x"), weights_of("self", 3));
    REQUIRE(b.items.size() == 2);
    CHECK(b.items[0].d_k == 2);
    check_all_close(b.output, heads_ref().t3("batch.output"), 1e-12, "batched output");
}

TEST_CASE("per-head results sum to the output", "[core]") {
    const auto s = multi_head_self_attention(heads_ref().mat("self.x"), weights_of("self", 3));
    matrix sum = xt::zeros<double>({4, 6});
    for (std::size_t h = 0; h < 3; ++h) sum += xt::view(s.head_results, h, xt::all(), xt::all());
    check_all_close(sum, s.output, 1e-12, "sum of head results");
}

TEST_CASE("splitting heads is reshape (n, H, d) then transpose (H, n, d)", "[core]") {
    // Row i of a [2, 6] matrix holds 10·i + column; with H = 3 head h gets columns 2h, 2h+1.
    matrix m({2, 6});
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t c = 0; c < 6; ++c) m(i, c) = 10.0 * i + c;
    const tensor3 t = split_heads(m, 3);
    REQUIRE(t.shape(0) == 3);
    REQUIRE(t.shape(1) == 2);
    REQUIRE(t.shape(2) == 2);
    CHECK(t(0, 0, 0) == 0.0);
    CHECK(t(0, 0, 1) == 1.0);
    CHECK(t(1, 0, 0) == 2.0);
    CHECK(t(2, 1, 1) == 15.0);
    CHECK(static_cast<bool>(merge_heads(t) == m));
    CHECK_THROWS_AS(split_heads(m, 4), shape_error);
}

TEST_CASE("one head with identity output projection is plain attention", "[core]") {
    const matrix x = attn::testing::shared_q();  // [5, 4] any input will do
    const matrix eye = xt::eye<double>(4);
    const auto mh = multi_head_self_attention(x, {eye, eye, eye, eye, 1});
    const auto single = scaled_dot_product_attention(x, x, x);
    check_all_close(mh.output, single.output, 1e-12, "output");
}

TEST_CASE("per-head weight matrices stack into the full projections", "[core]") {
    const auto w = weights_of("self", 2);
    const auto rebuilt = weights_from_heads({head_columns(w.w_q, 0, 2), head_columns(w.w_q, 1, 2)},
                                            {head_columns(w.w_k, 0, 2), head_columns(w.w_k, 1, 2)},
                                            {head_columns(w.w_v, 0, 2), head_columns(w.w_v, 1, 2)}, w.w_o);
    CHECK(static_cast<bool>(rebuilt.w_q == w.w_q));
    CHECK(static_cast<bool>(rebuilt.w_v == w.w_v));
    CHECK(rebuilt.heads == 2);
    CHECK(head_rows(w.w_o, 1, 2)(0, 0) == w.w_o(3, 0));
}

TEST_CASE("multi-head shape errors name both shapes by axis names", "[core]") {
    const matrix x = xt::zeros<double>({4, 6});
    auto w = weights_of("self", 2);
    SECTION("W_Q rows differ from d_model") {
        w.w_q = xt::zeros<double>({5, 6});
        CHECK_THROWS_WITH(multi_head_self_attention(x, w),
                          Contains("W_Q has d_model = 5 rows but X_q has d_model = 6") &&
                              Contains("X_q [n_q=4, d_model=6]") && Contains("W_Q [d_model=5, H·d_k=6]"));
    }
    SECTION("heads do not divide the width") {
        w.heads = 4;
        CHECK_THROWS_WITH(multi_head_self_attention(x, w), Contains("W_Q has 6 columns, not a positive multiple of H = 4"));
    }
    SECTION("W_O rows differ from H·d_v") {
        w.w_o = xt::zeros<double>({4, 6});
        CHECK_THROWS_WITH(multi_head_self_attention(x, w), Contains("W_O has H·d_v = 4 rows but W_V has H·d_v = 6"));
    }
    SECTION("X_kv width differs") {
        CHECK_THROWS_AS(multi_head_attention(x, matrix(xt::zeros<double>({3, 5})), w), shape_error);
    }
    SECTION("no heads") {
        w.heads = 0;
        CHECK_THROWS_WITH(multi_head_self_attention(x, w), Contains("H is 0"));
    }
}

TEST_CASE("a batch takes one attention option per item", "[core]") {
    const tensor3 x = heads_ref().t3("batch.x");  // [2, 3, 6]
    attention_options pad_last, none;
    pad_last.mask = padding_mask(3, {false, false, true});
    const auto b = multi_head_attention_batched(x, x, weights_of("self", 3), {none, pad_last});
    CHECK(b.items[0].head[0].weights(0, 2) > 0.0);
    CHECK(b.items[1].head[0].weights(0, 2) == 0.0);
    // Item 1 alone, with its mask, gives the same numbers.
    const auto alone = multi_head_self_attention(matrix(xt::view(x, 1, xt::all(), xt::all())), weights_of("self", 3), pad_last);
    check_all_close(matrix(xt::view(b.output, 1, xt::all(), xt::all())), alone.output, 0.0, "item 1");
    CHECK_THROWS_AS(multi_head_attention_batched(x, x, weights_of("self", 3), {none, none, none}), shape_error);
}
