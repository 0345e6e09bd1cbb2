// model/names_gguf.cpp — llama.cpp's GGUF tensor names mapped onto model/params (see
// checkpoint_names.hpp): the one place that spells them for reading weights
// (model/gguf_family.cpp checks the same names' shapes in the header).
//
//   embed.W_E        token_embd.weight                 pos_embed.W_pos  position_embd.weight (gpt2)
//   blocks.L.ln1     blk.L.attn_norm                   blocks.L.ln2     blk.L.ffn_norm
//   attn.W_qkv       blk.L.attn_q | attn_k | attn_v    (gpt2: blk.L.attn_qkv, fused)
//   attn.W_O         blk.L.attn_output                 mlp.W_gate       blk.L.ffn_gate (SwiGLU)
//   mlp.W_in         blk.L.ffn_up                      mlp.W_out        blk.L.ffn_down
//   ln_final         output_norm                       unembed.W_U      output.weight
#include <map>

#include "core/internal_error.hpp"
#include "model/checkpoint_names.hpp"

namespace attn::model {

namespace {

struct gguf_part {
    std::vector<std::string> parts;  // llama.cpp's part names inside the block (or the model)
    bool transposed;
};

// attn's name of a block's parameter → llama.cpp's (without "blk.L.").
gguf_part block_part(const std::string& ours, const architecture& a) {
    const bool fused = a.family == "gpt2";  // GGUF gpt2 keeps GPT-2's fused c_attn
    static const std::map<std::string, gguf_part> names = {
        {"ln1.w", {{"attn_norm.weight"}, false}},      {"ln1.b", {{"attn_norm.bias"}, false}},
        {"attn.W_O", {{"attn_output.weight"}, true}},  {"attn.b_O", {{"attn_output.bias"}, false}},
        {"ln2.w", {{"ffn_norm.weight"}, false}},       {"ln2.b", {{"ffn_norm.bias"}, false}},
        {"mlp.W_gate", {{"ffn_gate.weight"}, true}},   {"mlp.W_in", {{"ffn_up.weight"}, true}},
        {"mlp.b_in", {{"ffn_up.bias"}, false}},        {"mlp.W_out", {{"ffn_down.weight"}, true}},
        {"mlp.b_out", {{"ffn_down.bias"}, false}},
    };
    if (ours == "attn.W_qkv")
        return fused ? gguf_part{{"attn_qkv.weight"}, true} : gguf_part{{"attn_q.weight", "attn_k.weight", "attn_v.weight"}, true};
    if (ours == "attn.b_qkv")
        return fused ? gguf_part{{"attn_qkv.bias"}, false} : gguf_part{{"attn_q.bias", "attn_k.bias", "attn_v.bias"}, false};
    const auto it = names.find(ours);
    if (it == names.end()) throw internal_error("names_gguf: no GGUF name for the block parameter '" + ours + "'");
    return it->second;
}

}  // namespace

gguf_source gguf_param_source(const std::string& name, const architecture& a) {
    static const std::map<std::string, std::string> model_names = {
        {"embed.W_E", "token_embd.weight"},    {"pos_embed.W_pos", "position_embd.weight"},
        {"ln_final.w", "output_norm.weight"},  {"ln_final.b", "output_norm.bias"},
        {"unembed.W_U", "output.weight"}};
    if (const auto it = model_names.find(name); it != model_names.end()) return {{it->second}, false};
    // "blocks.L.part" → "blk.L." + llama.cpp's part
    const std::size_t dot = name.find('.', 7);
    if (name.compare(0, 7, "blocks.") != 0 || dot == std::string::npos)
        throw internal_error("names_gguf: '" + name + "' is not a parameter name");
    const std::string layer = name.substr(7, dot - 7);
    const gguf_part p = block_part(name.substr(dot + 1), a);
    gguf_source s;
    s.transposed = p.transposed;
    for (const auto& part : p.parts) s.tensors.push_back("blk." + layer + "." + part);
    return s;
}

}  // namespace attn::model
