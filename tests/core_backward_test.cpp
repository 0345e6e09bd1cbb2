// tests/core_backward_test.cpp — the backward pass of attention (lesson 15) against
// PyTorch autograd in float64 (tests/data/core_backward_reference.txt, made and
// re-checked by tests/python/core_backward_reference.py / test_core_new_stages.py),
// to 1e-12, for self, causal-with-bias and padded cross-attention; the softmax
// Jacobian and its closed-form norm; and lesson 02's saturation, measured.
#include <catch2/catch.hpp>

#include <xtensor/xview.hpp>

#include "core/backward.hpp"
#include "core/shape_error.hpp"
#include "support/core_reference_data.hpp"

using namespace attn;
using attn::testing::check_all_close;
using Catch::Matchers::WithinAbs;

namespace {
const attn::testing::reference_data& data() {
    static const attn::testing::reference_data d("core_backward_reference.txt");
    return d;
}
bool_matrix as_mask(const matrix& m) {
    bool_matrix b(m.shape());
    for (std::size_t i = 0; i < m.size(); ++i) b.flat(i) = m.flat(i) != 0.0;
    return b;
}
}  // namespace

TEST_CASE("every gradient of attention matches PyTorch autograd to 1e-12", "[core][backward]") {
    const std::string c = GENERATE(as<std::string>{}, "self", "causal", "cross");
    INFO(c);
    attention_options o;
    if (c != "self") o.mask = as_mask(data().mat(c + ".mask"));
    if (c == "causal") o.bias = data().mat(c + ".bias");
    if (c == "cross") o.scale_divisor = data().at("cross.scale")(0);
    const auto f = scaled_dot_product_attention(data().mat(c + ".q"), data().mat(c + ".k"), data().mat(c + ".v"), o);
    check_all_close(f.weights, data().mat(c + ".weights"), 1e-12, "weights");
    const auto g = attention_backward(f, data().mat(c + ".d_out"));
    check_all_close(g.grad_v, data().mat(c + ".grad_v"), 1e-12, "dV");
    check_all_close(g.grad_weights, data().mat(c + ".grad_weights"), 1e-12, "dA");
    check_all_close(g.grad_scores, data().mat(c + ".grad_scores"), 1e-12, "dS");
    check_all_close(g.grad_raw, data().mat(c + ".grad_raw"), 1e-12, "d(QKᵀ)");
    check_all_close(g.grad_q, data().mat(c + ".grad_q"), 1e-12, "dQ");
    check_all_close(g.grad_k, data().mat(c + ".grad_k"), 1e-12, "dK");
}

TEST_CASE("each row of dS sums to zero because the weights always sum to one", "[core][backward]") {
    const auto f = scaled_dot_product_attention(data().mat("self.q"), data().mat("self.k"), data().mat("self.v"));
    const auto g = attention_backward(f, data().mat("self.d_out"));
    for (std::size_t i = 0; i < f.n_q(); ++i) CHECK_THAT(xt::sum(xt::row(g.grad_scores, i))(), WithinAbs(0.0, 1e-14));
}

TEST_CASE("a dO of the wrong shape is refused with both shapes named", "[core][backward]") {
    const auto f = scaled_dot_product_attention(data().mat("self.q"), data().mat("self.k"), data().mat("self.v"));
    CHECK_THROWS_WITH(attention_backward(f, matrix(xt::zeros<double>({5, 3}))),
                      Catch::Matchers::Contains("[n_q=5, d_v=4]"));
}

TEST_CASE("the softmax Jacobian matches autograd and its closed-form norm", "[core][backward]") {
    const matrix scores = xt::view(data().at("jacobian.scores"), xt::newaxis(), xt::all());  // [1, 6]
    const vector a = xt::view(softmax_rows(scores), 0, xt::all());                          // [6]
    const matrix j = softmax_jacobian(a);
    check_all_close(j, data().mat("jacobian.value"), 1e-12, "Jacobian");
    CHECK_THAT(softmax_jacobian_norm(a), WithinAbs(std::sqrt(xt::sum(j * j)()), 1e-14));
}

TEST_CASE("unscaled wide scores saturate the softmax and its gradient vanishes", "[core][backward]") {
    prng g(15);
    const auto small = measure_saturation(g, 4, 5, 400);
    const auto wide = measure_saturation(g, 1024, 5, 400);
    // Scaled: about the same Jacobian norm for every d (the point of √d).
    CHECK_THAT(wide.scaled_norm / small.scaled_norm, WithinAbs(1.0, 0.25));
    // Unscaled: at d = 1024 the largest weight is nearly 1 and the gradient nearly gone.
    CHECK(wide.unscaled_max > 0.95);
    CHECK(wide.unscaled_norm < 0.1 * wide.scaled_norm);
}
