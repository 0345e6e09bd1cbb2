// model/checkpoint_layout.cpp — reading a checkpoint's names and shapes (see
// checkpoint_layout.hpp): which tensors are there, how many layers, which layout.
#include "model/checkpoint_layout.hpp"

#include <set>

#include "model/checkpoint_names.hpp"
#include "model/file_error.hpp"

namespace attn::model {

namespace {

constexpr std::size_t max_layers = 100000;

std::string q(const std::string& s) { return "'" + shown(s) + "'"; }

[[noreturn]] void unexpected(const st_header& h, const st_tensor& t) {
    throw file_error("invalid", tensor_file(h, t), t.entry_at, "unexpected tensor " + q(t.name) +
                                                        ": not part of a GPT-2 or minGPT/nanoGPT checkpoint (expected " + gpt2_names_expected() + ")");
}

// "h.12.attn.c_attn.weight" → layer 12 and its part; false when the name is not a block's.
bool block_name(const std::string& key, std::size_t& layer, std::string& part) {
    if (key.compare(0, 2, "h.") != 0) return false;
    std::size_t i = 2, n = 0;
    while (i < key.size() && key[i] >= '0' && key[i] <= '9' && i < 9) n = n * 10 + static_cast<std::size_t>(key[i++] - '0');
    if (i == 2 || i >= key.size() || key[i] != '.' || (key[2] == '0' && i > 3)) return false;
    layer = n, part = key.substr(i + 1);
    return true;
}

// A 2-D tensor's shape; [0, 0] when it is not 2-D.
std::pair<std::uint64_t, std::uint64_t> dims2(const st_tensor& t) {
    return t.shape.size() == 2 ? std::make_pair(t.shape[0], t.shape[1]) : std::make_pair(std::uint64_t{0}, std::uint64_t{0});
}

const st_tensor& need(const st_header& h, const layout_scan& s, const std::string& key) {
    const auto it = s.by_key.find(key);
    if (it == s.by_key.end())
        throw file_error("missing", h.file, 8, "no tensor " + q(key) + " (or " + q("transformer." + key) + ") in the checkpoint");
    return *it->second;
}

// The layout from h.0's c_attn weight: [d, 3d] Conv1D, [3d, d] nn.Linear.
void decide_layout(const st_header& h, layout_scan& s) {
    const st_tensor& t = need(h, s, gpt2_key("blocks.0.attn.W_qkv"));
    const auto [a, b] = dims2(t);
    const std::uint64_t d = s.n_embd;
    if (a == d && b == 3 * d) s.linear = false;
    else if (a == 3 * d && b == d) s.linear = true;
    else
        throw file_error("invalid", tensor_file(h, t), t.shape_at, "tensor " + q(t.name) + " has a shape that fits neither layout: expected [" +
                                                            std::to_string(d) + ", " + std::to_string(3 * d) + "] (GPT-2, Conv1D) or [" +
                                                            std::to_string(3 * d) + ", " + std::to_string(d) +
                                                            "] (minGPT/nanoGPT, nn.Linear), from wte.weight's width " + std::to_string(d));
}

}  // namespace

layout_scan scan_layout(const st_header& h) {
    layout_scan s;
    for (const auto& t : h.tensors) {
        const bool prefixed = t.name.compare(0, 12, "transformer.") == 0;
        const std::string key = prefixed ? t.name.substr(12) : t.name;
        std::size_t layer = 0;
        std::string part;
        if (block_name(key, layer, part)) {
            if (part == "attn.bias" || part == "attn.masked_bias") continue;  // causal-mask buffers
            if (!gpt2_block_parts().count(part)) unexpected(h, t);
            if (layer >= max_layers)
                throw file_error("invalid", tensor_file(h, t), t.entry_at, "tensor " + q(t.name) + " is in layer " + std::to_string(layer) +
                                                                    "; attn reads at most " + std::to_string(max_layers) + " layers");
            s.n_layer = std::max(s.n_layer, layer + 1);
            if (gpt2_mlp_part(part)) s.has_mlp = true;
        } else if (!(key == "wte.weight" || key == "wpe.weight" || key == "ln_f.weight" || key == "ln_f.bias" ||
                     (key == "lm_head.weight" && !prefixed))) {
            unexpected(h, t);
        }
        if (!s.by_key.emplace(key, &t).second)
            throw file_error("invalid", tensor_file(h, t), t.entry_at, "tensor " + q(t.name) + " appears twice, with and without 'transformer.'");
    }
    // Tied weights saved once under lm_head.weight (safetensors' save_model keeps the
    // first name of a shared tensor in sorted order: nanoGPT's lm_head, not its wte).
    s.wte_from_lm_head = !s.by_key.count("wte.weight") && s.by_key.count("lm_head.weight");
    if (s.wte_from_lm_head) s.by_key["wte.weight"] = s.by_key["lm_head.weight"], s.by_key.erase("lm_head.weight");
    const st_tensor& wte = need(h, s, "wte.weight");
    const st_tensor& wpe = need(h, s, "wpe.weight");
    if (wte.shape.size() != 2 || wte.shape[0] == 0 || wte.shape[1] == 0)
        throw file_error("invalid", tensor_file(h, wte), wte.shape_at, "tensor " + q(wte.name) + " should be [vocabulary, width], both at least 1");
    s.vocab = wte.shape[0], s.n_embd = wte.shape[1];
    if (wpe.shape.size() != 2 || wpe.shape[0] == 0 || wpe.shape[1] != s.n_embd)
        throw file_error("invalid", tensor_file(h, wpe), wpe.shape_at, "tensor " + q(wpe.name) + " should be [positions, " + std::to_string(s.n_embd) +
                                                              "] (the width of wte.weight), with at least 1 position");
    s.n_positions = wpe.shape[0];
    if (s.n_layer == 0) throw file_error("missing", h.file, 8, "no transformer blocks in the checkpoint (no tensor h.0.*)");
    decide_layout(h, s);
    s.tied = !s.by_key.count("lm_head.weight");
    return s;
}

}  // namespace attn::model
