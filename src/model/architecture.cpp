// model/architecture.cpp — the families attn knows, one row each (see architecture.hpp).
#include "model/architecture.hpp"

namespace attn::model {

namespace {

architecture gpt2_row() { return architecture{}; }  // the defaults are GPT-2's

architecture llama_row() {
    architecture a;
    a.family = "llama";
    a.norm = norm_kind::rms_norm, a.norm_bias = false, a.ln_eps = 1e-5;
    a.positions = position_kind::rotary, a.rope_theta = 10000.0, a.pairing = rotary_pairing::half_split;
    a.qkv_bias = false, a.out_bias = false;
    a.mlp = mlp_kind::swiglu, a.mlp_bias = false;
    a.tied = false;
    return a;
}

architecture qwen2_row() {
    architecture a = llama_row();
    a.family = "qwen2";
    a.qkv_bias = true, a.rope_theta = 1000000.0, a.ln_eps = 1e-6;
    return a;
}

}  // namespace

bool architecture::is_gpt2_family() const {
    return norm == norm_kind::layer_norm && norm_bias && final_norm && positions == position_kind::learned && qkv_bias &&
           out_bias && (mlp == mlp_kind::gelu_tanh || mlp == mlp_kind::none) && (mlp == mlp_kind::none || mlp_bias) &&
           mlp_width == 0 && kv_heads() == n_head;
}

const std::vector<architecture_row>& architecture_rows() {
    static const std::vector<architecture_row> rows = {
        {"gpt2", "GPT-2, minGPT, nanoGPT: LayerNorm, learned positions, GELU MLP, tied unembedding", gpt2_row()},
        {"llama", "Llama, Mistral, SmolLM, TinyLlama: RMSNorm, rotary positions, grouped-query attention, SwiGLU MLP",
         llama_row()},
        {"qwen2", "Qwen2: the Llama family with biases on q, k and v", qwen2_row()},
    };
    return rows;
}

const architecture_row* find_architecture(const std::string& name) {
    for (const auto& r : architecture_rows())
        if (name == r.name) return &r;
    return nullptr;
}

std::string describe(const architecture& a) {
    std::string s = a.norm == norm_kind::rms_norm ? "RMSNorm" : a.norm_bias ? "LayerNorm" : "LayerNorm without bias";
    s += a.positions == position_kind::learned ? ", learned positions" : std::string(", rotary positions (") +
                                                                              (a.pairing == rotary_pairing::half_split ? "half-split" : "adjacent pairs") + ")";
    if (a.kv_heads() != a.n_head) s += ", " + std::to_string(a.kv_heads()) + " key/value heads";
    s += a.mlp == mlp_kind::none ? ", attention only" : a.mlp == mlp_kind::swiglu ? ", SwiGLU MLP" : a.mlp == mlp_kind::relu ? ", ReLU MLP" : ", GELU MLP";
    s += a.tied ? ", tied unembedding" : ", separate unembedding";
    return s;
}

}  // namespace attn::model
