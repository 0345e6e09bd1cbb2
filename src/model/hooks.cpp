// model/hooks.cpp — the model floor's hook list (see hooks.hpp).
#include "model/hooks.hpp"

namespace attn::model {

namespace {
const std::vector<const char*> per_pos = {"batch", "pos", "d_model"};
const std::vector<const char*> per_head_pos = {"batch", "pos", "head", "d_head"};
const std::vector<const char*> per_map = {"batch", "head", "query_pos", "key_pos"};
const std::vector<const char*> per_mlp = {"batch", "pos", "d_mlp"};
const std::vector<const char*> per_vocab = {"batch", "pos", "d_vocab"};
const std::vector<const char*> per_pos_one = {"batch", "pos", "one"};
bool rms(const architecture& c) { return c.norm == norm_kind::rms_norm; }
bool rotary(const architecture& c) { return c.positions == position_kind::rotary; }
bool learned(const architecture& c) { return c.positions == position_kind::learned; }
bool swiglu(const architecture& c) { return c.mlp == mlp_kind::swiglu; }
}  // namespace

const std::vector<hook_info>& model_hooks() {
    using s = hook_scope;
    static const std::vector<hook_info> hooks = {
        {"hook_embed", s::model, per_pos, "token embedding: row of wte for each token", false},
        {"hook_pos_embed", s::model, per_pos, "position embedding: row of wpe for each position", false, learned},
        {"hook_resid_pre", s::block, per_pos, "residual stream entering the block", false},
        {"ln1.hook_scale", s::block, per_pos_one, "RMSNorm's sqrt(mean(x^2) + eps) of each row", false, rms},
        {"ln1.hook_normalized", s::block, per_pos, "(x - mean) / sqrt(var + eps), before ln_1's weight and bias", false},
        {"attn.hook_q", s::block, per_head_pos, "queries: ln_1(x) W_Q + b_Q, split into heads", false},
        {"attn.hook_k", s::block, per_head_pos, "keys: ln_1(x) W_K + b_K, split into heads", false},
        {"attn.hook_v", s::block, per_head_pos, "values: ln_1(x) W_V + b_V, split into heads", false},
        {"attn.hook_rot_q", s::block, per_head_pos, "queries turned by their position (rotary embeddings)", false, rotary},
        {"attn.hook_rot_k", s::block, per_head_pos, "keys turned by their position (rotary embeddings)", false, rotary},
        {"attn.hook_attn_scores", s::block, per_map, "Q K^T / sqrt(d_head), -inf where the key is after the query", false},
        {"attn.hook_pattern", s::block, per_map, "softmax over key_pos of hook_attn_scores", false},
        {"attn.hook_z", s::block, per_head_pos, "each head's pattern times its values", false},
        {"hook_attn_out", s::block, per_pos, "heads side by side times W_O, plus b_O", false},
        {"hook_resid_mid", s::block, per_pos, "hook_resid_pre + hook_attn_out", true},
        {"ln2.hook_scale", s::block, per_pos_one, "RMSNorm's sqrt(mean(x^2) + eps) of each row", true, rms},
        {"ln2.hook_normalized", s::block, per_pos, "(x - mean) / sqrt(var + eps), before ln_2's weight and bias", true},
        {"mlp.hook_pre", s::block, per_mlp, "ln_2(x) W_in + b_in", true},
        {"mlp.hook_pre_linear", s::block, per_mlp, "ln_2(x) W_up: SwiGLU's linear half", true, swiglu},
        {"mlp.hook_post", s::block, per_mlp, "GELU (tanh form, as GPT-2) of hook_pre", true},
        {"hook_mlp_out", s::block, per_pos, "hook_post W_out + b_out", true},
        {"hook_resid_post", s::block, per_pos, "residual stream leaving the block", false},
        {"ln_final.hook_scale", s::model, per_pos_one, "RMSNorm's sqrt(mean(x^2) + eps) of each row", false, rms},
        {"ln_final.hook_normalized", s::model, per_pos, "(x - mean) / sqrt(var + eps), before ln_f's weight and bias", false},
        {"logits", s::model, per_vocab, "ln_f(x) times the unembedding (wte^T when tied)", false},
        {"probs", s::model, per_vocab, "softmax over d_vocab of logits: the next-token distribution", false},
    };
    return hooks;
}

std::vector<hook_name> hook_names(const architecture& c) {
    std::vector<hook_name> out;
    const auto& hooks = model_hooks();
    const auto wanted = [&](const hook_info& h) { return (c.has_mlp() || !h.needs_mlp) && (!h.applies || h.applies(c)); };
    std::size_t i = 0;
    for (; i < hooks.size() && hooks[i].scope == hook_scope::model; ++i)
        if (wanted(hooks[i])) out.push_back({hooks[i].name, &hooks[i], 0});
    const std::size_t first_block = i;
    for (std::size_t l = 0; l < c.n_layer; ++l)
        for (std::size_t j = first_block; j < hooks.size() && hooks[j].scope == hook_scope::block; ++j)
            if (wanted(hooks[j])) out.push_back({"blocks." + std::to_string(l) + "." + hooks[j].name, &hooks[j], l});
    for (; i < hooks.size(); ++i)
        if (hooks[i].scope == hook_scope::model && i >= first_block && wanted(hooks[i]))
            out.push_back({hooks[i].name, &hooks[i], 0});
    return out;
}

hook_name find_hook(const architecture& c, const std::string& name) {
    for (auto& h : hook_names(c))
        if (h.name == name) return h;
    return {name, nullptr, 0};
}

}  // namespace attn::model
