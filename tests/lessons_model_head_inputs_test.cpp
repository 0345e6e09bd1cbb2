// tests/lessons_model_head_inputs_test.cpp — a trained head's numbers
// (lessons/model_head_inputs) are the traced forward's hook_q, hook_k, hook_v (hook_rot_q,
// hook_rot_k where the student does not rotate) bit for bit, for every built-in model,
// layer and head, whatever order the heads are asked in (the per-thread forward kept and
// continued layer by layer) — and on a second input after the first.
#include <catch2/catch.hpp>

#include "lessons/model_head_inputs.hpp"
#include "lessons/trained_models.hpp"

using namespace attn;

namespace {

void check_heads(const std::string& name, const std::vector<int>& ids, bool from_last) {
    const auto& p = lessons::find_trained_model(name).params;
    const auto& c = p.config;
    const auto a = model::trace_stages(p, std::vector<std::vector<int>>{ids});
    const std::size_t L = c.n_layer, H = c.n_head, per = H / c.kv_heads();
    for (std::size_t n = 0; n < L * H; ++n) {
        const std::size_t at = from_last ? L * H - 1 - n : n, l = at / H, h = at % H;
        lessons::model_source m;
        std::tie(m.model, m.tokens, m.layer, m.head) = std::tie(name, ids, l, h);
        const lessons::head_numbers got = lessons::model_head_numbers(m, ids, false);
        const auto& b = a.blocks[l];
        const bool rotated = c.positions == model::position_kind::rotary && !got.rope_base;
        INFO(name << " layer " << l << " head " << h);
        for (std::size_t i = 0; i < ids.size(); ++i)
            for (std::size_t d = 0; d < c.d_head(); ++d) {
                CHECK(got.q(i, d) == (rotated ? b.rot_q(0, i, h, d) : b.q(0, i, h, d)));
                CHECK(got.k(i, d) == (rotated ? b.rot_k(0, i, h / per, d) : b.k(0, i, h / per, d)));
                CHECK(got.v(i, d) == b.v(0, i, h / per, d));
            }
    }
}

}  // namespace

TEST_CASE("a trained head's numbers are the traced forward's hooks bit for bit, in any order of heads", "[lessons]") {
    for (const auto& name : lessons::trained_model_names()) {
        const auto& c = lessons::find_trained_model(name).params.config;
        std::vector<int> ids, other;
        for (std::size_t i = 0; i < std::min<std::size_t>(c.n_positions, 11); ++i) {
            ids.push_back(static_cast<int>((3 * i + 1) % c.vocab_size));
            other.push_back(static_cast<int>((5 * i + 2) % c.vocab_size));
        }
        check_heads(name, ids, false);
        check_heads(name, other, true);
        check_heads(name, ids, true);
    }
}
