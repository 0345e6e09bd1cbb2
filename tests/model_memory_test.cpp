// model/memory's counts against the buffers themselves: forward_numbers equals the sum of
// make_train_acts's buffer sizes for GPT-2, attention-only, Llama (RMSNorm, rotary,
// grouped-query, SwiGLU, partial rotary) and Qwen2 shapes; traced_numbers equals what
// trace_stages holds for each stage request (its one block's working buffers, counted from
// make_train_acts(…, 1, false, grids), the score grids only when a block keeps them, plus
// the stages it returns, counted from forward_acts);
// sizes past 2^64 give nothing.
#include <catch2/catch.hpp>

#include <limits>
#include <vector>

#include "model/traced_forward.hpp"
#include "model/init.hpp"
#include "model/memory.hpp"
#include "model/train_step.hpp"

using namespace attn::model;

namespace {

architecture memory_test_shape(const char* family, std::size_t kv, std::size_t rotary_dims, mlp_kind mlp) {
    architecture c = find_architecture(family)->defaults;
    c.n_layer = 2;
    c.n_head = 4;
    c.n_kv_head = kv;
    c.n_embd = 16;
    c.vocab_size = 13;
    c.n_positions = 9;
    c.rotary_dims = rotary_dims;
    c.mlp = mlp;
    return c;
}

template <class T>
std::size_t held(const std::vector<T>& v) { return v.size(); }

std::size_t held_by(const train_acts<double>& a) {
    std::size_t n = held(a.embed) + held(a.lnf) + held(a.lnf_mean) + held(a.lnf_rstd) + held(a.logits) + held(a.probs) +
                    held(a.losses) + held(a.lnf_normalized) + held(a.lnf_scale) + a.rotary.cos.size() + a.rotary.sin.size();
    for (const auto& k : a.blocks)
        for (const auto* v : {&k.ln1, &k.ln1_mean, &k.ln1_rstd, &k.qkv, &k.scores, &k.pattern, &k.z, &k.attn_out,
                              &k.resid_mid, &k.ln2, &k.ln2_mean, &k.ln2_rstd, &k.mlp_pre, &k.mlp_post, &k.mlp_tanh,
                              &k.mlp_out, &k.resid_post, &k.ln1_normalized, &k.ln2_normalized, &k.ln1_scale, &k.ln2_scale,
                              &k.q, &k.k, &k.v, &k.rot_q, &k.rot_k, &k.mlp_pre_linear})
            n += v->size();
    return n;
}

template <class A>
std::size_t held_norm(const A& n) { return n.scale.size() + n.normalized.size() + n.mean.size() + n.rstd.size() + n.out.size(); }

std::size_t held_by(const forward_acts<double>& a) {
    std::size_t n = a.embed.size() + a.pos_embed.size() + held_norm(a.ln_final) + a.logits.size() + a.probs.size();
    for (const auto& b : a.blocks)
        n += b.resid_pre.size() + held_norm(b.ln1) + b.q.size() + b.k.size() + b.v.size() + b.rot_q.size() +
             b.rot_k.size() + b.scores.size() + b.pattern.size() + b.z.size() + b.attn_out.size() + b.resid_mid.size() +
             held_norm(b.ln2) + b.mlp_pre.size() + b.mlp_pre_linear.size() + b.mlp_post.size() + b.mlp_out.size() +
             b.resid_post.size();
    return n;
}

}  // namespace

TEST_CASE("forward_numbers counts every buffer make_train_acts allocates, traced_numbers what trace_stages keeps", "[memory]") {
    const std::vector<architecture> shapes{
        memory_test_shape("gpt2", 0, 0, mlp_kind::gelu_tanh), memory_test_shape("gpt2", 0, 0, mlp_kind::none),
        memory_test_shape("llama", 2, 0, mlp_kind::swiglu),   memory_test_shape("llama", 1, 2, mlp_kind::swiglu),
        memory_test_shape("qwen2", 4, 0, mlp_kind::swiglu),   memory_test_shape("llama", 2, 0, mlp_kind::none)};
    for (const auto& c : shapes)
        for (std::size_t B : {1, 3})
            for (std::size_t Tn : {1, 7}) {
                INFO(c.family << " kv " << c.n_kv_head << " B " << B << " Tn " << Tn);
                const auto acts = make_train_acts<double>(c, B, Tn);
                REQUIRE(forward_numbers(c, B, Tn) == held_by(acts));
                std::vector<std::vector<int>> tokens(B, std::vector<int>(Tn, 3));
                const auto p = init_params<double>(c, 5);
                for (const auto& r : {stage_request::all(), stage_request::outputs(), stage_request::block(1),
                                      stage_request::patterns()}) {
                    INFO("every block " << r.every_block << ", blocks " << r.blocks.size() << ", patterns " << r.every_pattern);
                    const std::size_t working = held_by(make_train_acts<double>(c, B, Tn, 1, false, r.keeps_grids(c.n_layer)));
                    CHECK(r.keeps_grids(c.n_layer) == !(r.blocks.empty() && !r.every_block && !r.every_pattern));
                    REQUIRE(traced_numbers(c, B, Tn, r) == working + held_by(trace_stages(p, tokens, r)));
                }
                REQUIRE(traced_numbers(c, B, Tn) == traced_numbers(c, B, Tn, stage_request::all()));
                REQUIRE(*traced_numbers(c, B, Tn, stage_request::outputs()) < *traced_numbers(c, B, Tn));
                REQUIRE(*training_numbers(c, B, Tn) >= 4 * parameter_count(c) + 2 * held_by(acts));
            }
}

TEST_CASE("counts past 2^64 are nothing, not a wrapped small number", "[memory]") {
    architecture c = memory_test_shape("gpt2", 0, 0, mlp_kind::gelu_tanh);
    const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
    CHECK_FALSE(forward_numbers(c, huge, 4));
    CHECK_FALSE(forward_numbers(c, 1, std::size_t{1} << 33));  // heads · Tn² overflows
    CHECK_FALSE(traced_numbers(c, 1, std::size_t{1} << 33));
    CHECK(traced_numbers(c, 1, std::size_t{1} << 33, stage_request::outputs()));  // no block keeps a [Tn, Tn] grid
    CHECK_FALSE(traced_numbers(c, 1, std::size_t{1} << 62, stage_request::outputs()));  // its logits [Tn, V] overflow
    CHECK(largest_parameter(c) == "blocks.0.mlp.W_in [16 × 64]");
}
