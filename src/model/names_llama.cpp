// model/names_llama.cpp — the Llama family's checkpoint names (Hugging Face Llama,
// Mistral, SmolLM, TinyLlama, Qwen2) mapped onto model/params; see checkpoint_names.hpp.
#include <map>

#include "model/checkpoint_names.hpp"

namespace attn::model {

namespace {

// attn's part of a block → the layer's tensors (model.layers.N. + these)
const std::map<std::string, std::vector<std::string>>& llama_block_names() {
    static const std::map<std::string, std::vector<std::string>> m = {
        {"ln1.w", {"input_layernorm.weight"}},
        {"attn.W_qkv", {"self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight"}},
        {"attn.b_qkv", {"self_attn.q_proj.bias", "self_attn.k_proj.bias", "self_attn.v_proj.bias"}},
        {"attn.W_O", {"self_attn.o_proj.weight"}},
        {"attn.b_O", {"self_attn.o_proj.bias"}},
        {"ln2.w", {"post_attention_layernorm.weight"}},
        {"mlp.W_gate", {"mlp.gate_proj.weight"}},
        {"mlp.W_in", {"mlp.up_proj.weight"}},
        {"mlp.b_in", {"mlp.up_proj.bias"}},
        {"mlp.W_out", {"mlp.down_proj.weight"}},
        {"mlp.b_out", {"mlp.down_proj.bias"}}};
    return m;
}

const std::map<std::string, std::string>& llama_model_names() {
    static const std::map<std::string, std::string> m = {
        {"embed.W_E", "model.embed_tokens.weight"}, {"ln_final.w", "model.norm.weight"}, {"unembed.W_U", "lm_head.weight"}};
    return m;
}

}  // namespace

std::vector<std::string> llama_keys(const std::string& name) {
    if (const auto it = llama_model_names().find(name); it != llama_model_names().end()) return {it->second};
    // "blocks.L.part" → "model.layers.L." + the part's tensors
    const std::size_t dot = name.find('.', 7);
    const std::string layer = "model.layers." + name.substr(7, dot - 7) + ".";
    std::vector<std::string> keys;
    for (const auto& part : llama_block_names().at(name.substr(dot + 1))) keys.push_back(layer + part);
    return keys;
}

bool llama_transposed(const std::string& name) {
    const auto ends = [&](const std::string& tail) {
        return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    return ends(".W_qkv") || ends(".W_O") || ends(".W_gate") || ends(".W_in") || ends(".W_out");
}

bool llama_name(const std::string& key) {
    return key.compare(0, 13, "model.layers.") == 0 || key == "model.embed_tokens.weight" || key == "model.norm.weight";
}

std::string llama_names_expected() {
    return "model.embed_tokens.weight, model.layers.N.input_layernorm.weight, model.layers.N.self_attn.q_proj/k_proj/"
           "v_proj/o_proj.weight (.bias), model.layers.N.post_attention_layernorm.weight, "
           "model.layers.N.mlp.gate_proj/up_proj/down_proj.weight, model.norm.weight, lm_head.weight";
}

}  // namespace attn::model
