// model/quant_matvec (decoding's products on a GGUF's Q8_0 and Q4_K blocks): on random
// blocks, every kernel set (AVX-512, AVX2, generic — those the CPU has) gives the bits of
// the definition written here — each block dequantized by model/gguf_quant, then the
// products w·x summed in 16 lanes (element k in lane k mod 16), the lanes folded
// 8, 4, 2, 1 — for any row range (a group of four rows and the rows left); and that sum is
// the row's dot product (double, within a few float roundings of Σ|w·x|), the weights
// being ggml's (a Q8_0 element is int8 · f16 d).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/kernels.hpp"
#include "model/gguf_quant.hpp"
#include "model/quant_matvec.hpp"

using namespace attn;
namespace quant = attn::model::quant;

namespace {

// A random finite half with |value| in about [2^-6, 4).
std::uint16_t random_half(std::mt19937& rng) {
    const std::uint32_t sign = rng() & 1u, exp = 9 + rng() % 8, man = rng() & 0x3FFu;
    return static_cast<std::uint16_t>((sign << 15) | (exp << 10) | man);
}

// rows × k elements of `type` (8: Q8_0, 12: Q4_K) as random blocks.
std::vector<unsigned char> random_blocks(std::uint32_t type, std::size_t rows, std::size_t k, std::mt19937& rng) {
    const std::size_t per = type == 8 ? 32 : 256, bytes = type == 8 ? 34 : 144, blocks = rows * k / per;
    std::vector<unsigned char> b(blocks * bytes);
    for (std::size_t i = 0; i < blocks; ++i) {
        unsigned char* p = b.data() + i * bytes;
        for (std::size_t j = 0; j < bytes; ++j) p[j] = static_cast<unsigned char>(rng());
        const std::uint16_t d = random_half(rng), dmin = random_half(rng);
        std::memcpy(p, &d, 2);
        if (type == 12) std::memcpy(p + 2, &dmin, 2);
    }
    return b;
}

// The definition: dequantize the row, then 16 lanes folded 8, 4, 2, 1.
float lanes_definition(const quant::part& p, std::size_t r, const std::vector<float>& x) {
    std::vector<float> w(p.k);
    model::dequantize_blocks(p.type, p.data + r * p.row_bytes, p.k / (p.type == 8 ? 32 : 256), w.data());
    float s[16] = {};
    for (std::size_t i = 0; i < p.k; ++i) s[i % 16] += w[i] * x[i];
    for (int step = 8; step >= 1; step /= 2)
        for (int i = 0; i < step; ++i) s[i] += s[i + step];
    return s[0];
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("quantized matrix-vector products give the definition's bits on every kernel set", "[model][quant]") {
    std::mt19937 rng(33);
    const kernels::isa best = kernels::best_supported();
    for (const std::uint32_t type : {8u, 12u}) {
        const std::size_t rows = 11, k = 512;
        const std::vector<unsigned char> bytes = random_blocks(type, rows, k, rng);
        const quant::part p{type, bytes.data(), rows, k, k / (type == 8 ? 32 : 256) * (type == 8 ? 34 : 144)};
        std::vector<float> x(k);
        std::normal_distribution<float> normal;
        for (float& v : x) v = normal(rng);
        std::vector<float> want(rows);
        for (std::size_t r = 0; r < rows; ++r) want[r] = lanes_definition(p, r, x);
        for (const kernels::isa which : {kernels::isa::generic, kernels::isa::avx2, kernels::isa::avx512}) {
            if (static_cast<int>(which) > static_cast<int>(best)) continue;
            kernels::force(which);
            for (const auto& [r0, r1] : {std::pair<std::size_t, std::size_t>{0, rows}, {1, 6}, {3, 4}}) {
                std::vector<float> got(r1 - r0);
                quant::matvec_rows(p, r0, r1, x.data(), got.data());
                for (std::size_t r = r0; r < r1; ++r) {
                    INFO("type " << type << ", kernel set " << static_cast<int>(which) << ", row " << r);
                    CHECK(same_bits(got[r - r0], want[r]));
                }
            }
        }
        kernels::force(best);
        for (std::size_t r = 0; r < rows; ++r) {  // the sum is the row's dot product
            std::vector<float> w(k);
            quant::dequantize_row(p, r, w.data());
            double dot = 0, mag = 0;
            for (std::size_t i = 0; i < k; ++i) dot += double(w[i]) * x[i], mag += std::fabs(double(w[i]) * x[i]);
            CHECK(std::fabs(want[r] - dot) <= 64 * 6e-8 * mag);
        }
    }
}

TEST_CASE("a Q8_0 weight is its int8 codes times the block's f16 scale", "[model][quant]") {
    unsigned char block[34];
    const std::uint16_t d = 0x3A00;  // 0.75
    std::memcpy(block, &d, 2);
    for (int j = 0; j < 32; ++j) block[2 + j] = static_cast<unsigned char>(static_cast<std::int8_t>(j * 7 - 100));
    const quant::part p{8, block, 1, 32, 34};
    float w[32];
    quant::dequantize_row(p, 0, w);
    for (int j = 0; j < 32; ++j) CHECK(w[j] == 0.75f * static_cast<float>(j * 7 - 100));
    std::vector<float> x(32, 0.f);
    x[5] = 2.f;
    float out = 0;
    quant::matvec_rows(p, 0, 1, x.data(), &out);
    CHECK(out == 2.f * 0.75f * static_cast<float>(5 * 7 - 100));
    CHECK(quant::first_nonfinite_block(p) == 1);  // every block finite: one past the last
    const std::uint16_t inf = 0x7C00;
    std::memcpy(block, &inf, 2);
    CHECK(quant::first_nonfinite_block(p) == 0);
}
