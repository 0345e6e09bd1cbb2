// model/gpt_params.hpp — a GPT-style decoder's configuration and its parameters, the
// one description every part of the model floor shares: the forward (model/gpt_forward),
// the backward and the optimiser (training), and the checkpoint reader and writer
// (model/checkpoint_*), which map these fields to the names of a file's layout.
//
// Every linear layer is stored as [in, out], so a layer is x · W + b on row vectors
// (Hugging Face GPT-2's Conv1D layout; minGPT/nanoGPT's nn.Linear [out, in] is
// transposed on reading and on writing). The fused QKV projection keeps GPT-2's column
// order: q | k | v, and inside each, head h at columns h·d_head … (h+1)·d_head − 1.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace attn::model {

struct gpt_config {
    std::size_t n_layer = 0;
    std::size_t n_head = 0;
    std::size_t n_embd = 0;       // d_model
    std::size_t vocab_size = 0;   // d_vocab
    std::size_t n_positions = 0;  // the longest sequence (n_ctx)
    double ln_eps = 1e-5;         // layer norm epsilon (GPT-2: 1e-5)
    bool has_mlp = true;          // false: attention-only blocks (no ln_2, no MLP)
    bool tied = true;             // the unembedding is wte (lm_head absent)

    std::size_t d_head() const { return n_head == 0 ? 0 : n_embd / n_head; }
    std::size_t d_mlp() const { return 4 * n_embd; }
};

template <class T>
using param1 = xt::xtensor<T, 1>;
template <class T>
using param2 = xt::xtensor<T, 2>;

template <class T>
struct block_params {
    param1<T> ln1_w, ln1_b;  // [d_model]               ln_1
    param2<T> w_qkv;         // [d_model, 3·d_model]    attn.c_attn: x · W → q | k | v
    param1<T> b_qkv;         // [3·d_model]
    param2<T> w_out;         // [d_model, d_model]      attn.c_proj: z (heads side by side) · W_O
    param1<T> b_out;         // [d_model]
    param1<T> ln2_w, ln2_b;  // [d_model]               ln_2        (empty without MLP)
    param2<T> w_fc;          // [d_model, d_mlp]        mlp.c_fc    (empty without MLP)
    param1<T> b_fc;          // [d_mlp]
    param2<T> w_proj;        // [d_mlp, d_model]        mlp.c_proj  (empty without MLP)
    param1<T> b_proj;        // [d_model]
};

template <class T>
struct gpt_params {
    gpt_config config;
    param2<T> wte;                        // [vocab, d_model]       token embedding
    param2<T> wpe;                        // [n_positions, d_model] learned positions
    std::vector<block_params<T>> blocks;  // [n_layer]
    param1<T> lnf_w, lnf_b;               // [d_model]              ln_f
    param2<T> lm_head;                    // [vocab, d_model]       empty when config.tied
};

// What a parameter is, for the optimiser (minGPT decays Linear weights only, never
// embeddings, layer norms or biases) and for the checkpoint layouts (linear weights
// are the ones nn.Linear stores transposed).
enum class param_kind { embedding, linear, norm, bias };

// Calls f(name, kind, tensor) for every parameter present, in one fixed order, with
// its minGPT/nanoGPT name ("transformer.h.0.attn.c_attn.weight"). Parameters absent
// from the model (lm_head when tied, ln_2/MLP without MLP) are skipped. Works on
// const and non-const params (f gets const or non-const tensors).
template <class Params, class F>
void for_each_param(Params& p, F&& f) {
    f(std::string("transformer.wte.weight"), param_kind::embedding, p.wte);
    f(std::string("transformer.wpe.weight"), param_kind::embedding, p.wpe);
    for (std::size_t l = 0; l < p.blocks.size(); ++l) {
        auto& b = p.blocks[l];
        const std::string h = "transformer.h." + std::to_string(l) + ".";
        f(h + "ln_1.weight", param_kind::norm, b.ln1_w);
        f(h + "ln_1.bias", param_kind::bias, b.ln1_b);
        f(h + "attn.c_attn.weight", param_kind::linear, b.w_qkv);
        f(h + "attn.c_attn.bias", param_kind::bias, b.b_qkv);
        f(h + "attn.c_proj.weight", param_kind::linear, b.w_out);
        f(h + "attn.c_proj.bias", param_kind::bias, b.b_out);
        if (!p.config.has_mlp) continue;
        f(h + "ln_2.weight", param_kind::norm, b.ln2_w);
        f(h + "ln_2.bias", param_kind::bias, b.ln2_b);
        f(h + "mlp.c_fc.weight", param_kind::linear, b.w_fc);
        f(h + "mlp.c_fc.bias", param_kind::bias, b.b_fc);
        f(h + "mlp.c_proj.weight", param_kind::linear, b.w_proj);
        f(h + "mlp.c_proj.bias", param_kind::bias, b.b_proj);
    }
    f(std::string("transformer.ln_f.weight"), param_kind::norm, p.lnf_w);
    f(std::string("transformer.ln_f.bias"), param_kind::bias, p.lnf_b);
    if (!p.config.tied) f(std::string("lm_head.weight"), param_kind::linear, p.lm_head);
}

// Parameters allocated with the config's shapes and filled with zeros (layer norm
// weights with ones). The checkpoint reader fills them; training initialises them.
template <class T>
gpt_params<T> zero_params(const gpt_config& config);

// Total number of parameters (tied lm_head counted once).
std::size_t parameter_count(const gpt_config& config);

}  // namespace attn::model
