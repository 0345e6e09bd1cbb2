// tests/model_unkept_grids_test.cpp — a traced forward that keeps no block's score grids
// (stage_request::outputs: attention a few query rows at a time in scratch, the grids
// checked finite there) gives the bits of the forward that keeps every stage, for GPT-2's
// kernels (one-lane-per-key at T ≤ 16, the long path past it, float and double) and the
// Llama family's (rotary, grouped-query), and a kept block equals the same block kept alone.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "model/init.hpp"
#include "model/traced_forward.hpp"

using namespace attn::model;

namespace {

architecture unkept_test_shape(const char* family, std::size_t kv) {
    architecture c = find_architecture(family)->defaults;
    c.n_layer = 3;
    c.n_head = 2;
    c.n_kv_head = kv;
    c.n_embd = 64;  // d_head 32: the vector kernels' whole vectors
    c.vocab_size = 29;
    c.n_positions = 40;
    return c;
}

template <class Tensor>
bool same_bits(const Tensor& a, const Tensor& b) {
    return a.size() == b.size() && a.size() > 0 && std::memcmp(a.data(), b.data(), a.size() * sizeof(*a.data())) == 0;
}

template <class T>
void check_unkept_same_bits(const architecture& c, std::size_t Tn) {
    const auto p = init_params<T>(c, 11);
    std::vector<std::vector<int>> tokens(2, std::vector<int>(Tn));
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t i = 0; i < Tn; ++i) tokens[b][i] = static_cast<int>((7 * i + 3 * b + 1) % c.vocab_size);
    const auto all = trace_stages(p, tokens, stage_request::all());
    const auto outputs = trace_stages(p, tokens, stage_request::outputs());
    const auto one = trace_stages(p, tokens, stage_request::block(1));
    CHECK(same_bits(all.logits, outputs.logits));
    CHECK(same_bits(all.probs, outputs.probs));
    CHECK(same_bits(all.logits, one.logits));
    CHECK(outputs.blocks[1].pattern.size() == 0);
    CHECK(same_bits(all.blocks[1].pattern, one.blocks[1].pattern));
    CHECK(same_bits(all.blocks[1].scores, one.blocks[1].scores));
    CHECK(same_bits(all.blocks[1].z, one.blocks[1].z));
    CHECK(one.blocks[0].pattern.size() == 0);
}

}  // namespace

TEST_CASE("a forward keeping no grids gives the bits of one keeping every stage", "[model]") {
    for (std::size_t Tn : {9, 37}) {
        INFO("Tn " << Tn);
        check_unkept_same_bits<float>(unkept_test_shape("gpt2", 0), Tn);
        check_unkept_same_bits<double>(unkept_test_shape("gpt2", 0), Tn);
        check_unkept_same_bits<float>(unkept_test_shape("llama", 1), Tn);
        check_unkept_same_bits<double>(unkept_test_shape("llama", 2), Tn);
    }
}
