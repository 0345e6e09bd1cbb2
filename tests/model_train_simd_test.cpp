// model/train_simd (training's AVX-512 GELU forward and backward) gives the bits of the scalar code:
// its e^x equals std::exp(float) on a spread of every float's bit patterns and on the
// edges (overflow to ∞, underflow through the subnormals to 0, NaN, ±0), and its GELU
// equals the scalar formula of model/train_layers element for element. On a CPU without
// AVX-512 the calls do nothing and say so (0 elements done).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/kernels.hpp"
#include "model/train_simd.hpp"

using namespace attn;
namespace simd = attn::model::training::simd;

namespace {

float from_bits(std::uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

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
        if (same_bits(want, got[i]) || (std::isnan(want) && std::isnan(got[i]))) continue;
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
        if (same_bits(want_th, th[i]) && same_bits(want, out[i])) continue;
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
    const std::size_t done = simd::gelu_backward(got.data(), x.data(), th.data(), dout.data(), x.size());
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
        if (same_bits(want, got[i])) continue;
        if (++bad <= 5) FAIL_CHECK("GELU'(" << x[i] << "): scalar " << want << ", vector " << got[i]);
    }
    CHECK(bad == 0);
    CHECK(got[x.size() - 1] == dinp[x.size() - 1]);  // the tail is the caller's: untouched
}
