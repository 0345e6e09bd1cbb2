// model/names_gpt2.cpp — the GPT-2 family's checkpoint names (Hugging Face GPT-2,
// minGPT, nanoGPT) mapped onto model/params; see checkpoint_names.hpp.
#include <map>

#include "model/checkpoint_names.hpp"

namespace attn::model {

namespace {

// attn's part of a block → GPT-2's
const std::map<std::string, std::string>& block_names() {
    static const std::map<std::string, std::string> m = {
        {"ln1.w", "ln_1.weight"},           {"ln1.b", "ln_1.bias"},           {"attn.W_qkv", "attn.c_attn.weight"},
        {"attn.b_qkv", "attn.c_attn.bias"}, {"attn.W_O", "attn.c_proj.weight"}, {"attn.b_O", "attn.c_proj.bias"},
        {"ln2.w", "ln_2.weight"},           {"ln2.b", "ln_2.bias"},           {"mlp.W_in", "mlp.c_fc.weight"},
        {"mlp.b_in", "mlp.c_fc.bias"},      {"mlp.W_out", "mlp.c_proj.weight"}, {"mlp.b_out", "mlp.c_proj.bias"}};
    return m;
}

const std::map<std::string, std::string>& model_names() {
    static const std::map<std::string, std::string> m = {{"embed.W_E", "wte.weight"},   {"pos_embed.W_pos", "wpe.weight"},
                                                         {"ln_final.w", "ln_f.weight"}, {"ln_final.b", "ln_f.bias"},
                                                         {"unembed.W_U", "lm_head.weight"}};
    return m;
}

}  // namespace

std::string gpt2_key(const std::string& name) {
    if (const auto it = model_names().find(name); it != model_names().end()) return it->second;
    // "blocks.L.part" → "h.L." + GPT-2's part
    const std::size_t dot = name.find('.', 7);
    return "h." + name.substr(7, dot - 7) + "." + block_names().at(name.substr(dot + 1));
}

std::string mingpt_name(const std::string& name) {
    const std::string key = gpt2_key(name);
    return key == "lm_head.weight" ? key : "transformer." + key;
}

const std::set<std::string>& gpt2_block_parts() {
    static const std::set<std::string> parts = [] {
        std::set<std::string> s;
        for (const auto& [ours, theirs] : block_names()) s.insert(theirs);
        return s;
    }();
    return parts;
}

bool gpt2_mlp_part(const std::string& part) { return part.compare(0, 4, "mlp.") == 0 || part.compare(0, 4, "ln_2") == 0; }

std::string gpt2_names_expected() {
    return "wte.weight, wpe.weight, h.N.ln_1.weight … h.N.mlp.c_proj.bias, ln_f.weight, ln_f.bias, lm_head.weight, each maybe "
           "after 'transformer.'";
}

}  // namespace attn::model
