// model/params.hpp — a decoder's parameters, one set of types for every family of
// model/architecture.hpp: the forward and backward, the optimiser, and the checkpoint
// readers and writers share them; each checkpoint family maps its tensor names onto
// them in one file (model/names_gpt2.cpp, model/names_llama.cpp).
//
// Every linear layer is stored as [in, out], so a layer is x · W + b on row vectors
// (Hugging Face GPT-2's Conv1D layout; nn.Linear's [out, in] is transposed on reading
// and on writing). The fused projection keeps GPT-2's column order, with grouped-query
// attention's key/value heads: q | k | v = H·d_head | KV·d_head | KV·d_head columns,
// head h at columns h·d_head … (h+1)·d_head − 1 inside each (Llama's q_proj, k_proj,
// v_proj side by side). A parameter the architecture does not have is empty (size 0).
// A parameter's storage (model/param_storage.hpp) is its own memory or, read from a
// checkpoint that holds it as the forward reads it, a read-only view of the mapped file.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "model/architecture.hpp"
#include "model/param_storage.hpp"

namespace attn::model {

template <class T>
using param1 = xt::xtensor_container<param_storage<T>, 1, xt::layout_type::row_major>;
template <class T>
using param2 = xt::xtensor_container<param_storage<T>, 2, xt::layout_type::row_major>;

template <class T>
struct block_params {
    param1<T> ln1_w, ln1_b;  // [d_model]               ln1 (b: LayerNorm with bias only)
    param2<T> w_qkv;         // [d_model, qkv_width]    x · W → q | k | v (qkv_width = (H + 2·KV)·d_head)
    param1<T> b_qkv;         // [qkv_width]             (empty without q/k/v biases)
    param2<T> w_out;         // [H·d_head, d_model]     z (heads side by side) · W_O
    param1<T> b_out;         // [d_model]               (empty without an output bias)
    param1<T> ln2_w, ln2_b;  // [d_model]               ln2         (empty without MLP)
    param2<T> w_gate;        // [d_model, d_mlp]        SwiGLU's gate (empty unless SwiGLU)
    param2<T> w_fc;          // [d_model, d_mlp]        W_in: GPT-2's c_fc, Llama's up_proj (empty without MLP)
    param1<T> b_fc;          // [d_mlp]                 (empty without MLP biases)
    param2<T> w_proj;        // [d_mlp, d_model]        W_out: GPT-2's c_proj, Llama's down_proj
    param1<T> b_proj;        // [d_model]               (empty without MLP biases)
};

template <class T>
struct model_params {
    architecture config;
    param2<T> wte;                        // [vocab, d_model]       W_E, the token embedding
    param2<T> wpe;                        // [n_positions, d_model] W_pos, learned positions (empty with rotary)
    std::vector<block_params<T>> blocks;  // [n_layer]
    param1<T> lnf_w, lnf_b;               // [d_model]              ln_final (empty without a final norm)
    param2<T> lm_head;                    // [vocab, d_model]       W_U ᵀ; empty when config.tied
};

// What a parameter is, for the optimiser (minGPT decays Linear weights only, never
// embeddings, norms or biases) and for the checkpoint layouts (linear weights are the
// ones nn.Linear stores transposed).
enum class param_kind { embedding, linear, norm, bias };

// Calls f(name, kind, tensor) for every parameter the architecture has, in one fixed
// order (the one GPT-2's weights are initialised and stored in), with its name in attn's
// own vocabulary, TransformerLens's ("blocks.0.attn.W_qkv"); a name-mapping file
// (model/names_*.cpp) turns it into a checkpoint family's name. Works on const and
// non-const params (f gets const or non-const tensors).
template <class Params, class F>
void for_each_param(Params& p, F&& f) {
    const architecture& a = p.config;
    f(std::string("embed.W_E"), param_kind::embedding, p.wte);
    if (a.positions == position_kind::learned) f(std::string("pos_embed.W_pos"), param_kind::embedding, p.wpe);
    for (std::size_t l = 0; l < p.blocks.size(); ++l) {
        auto& b = p.blocks[l];
        const std::string h = "blocks." + std::to_string(l) + ".";
        f(h + "ln1.w", param_kind::norm, b.ln1_w);
        if (a.norm_bias) f(h + "ln1.b", param_kind::bias, b.ln1_b);
        f(h + "attn.W_qkv", param_kind::linear, b.w_qkv);
        if (a.qkv_bias) f(h + "attn.b_qkv", param_kind::bias, b.b_qkv);
        f(h + "attn.W_O", param_kind::linear, b.w_out);
        if (a.out_bias) f(h + "attn.b_O", param_kind::bias, b.b_out);
        if (!a.has_mlp()) continue;
        f(h + "ln2.w", param_kind::norm, b.ln2_w);
        if (a.norm_bias) f(h + "ln2.b", param_kind::bias, b.ln2_b);
        if (a.mlp == mlp_kind::swiglu) f(h + "mlp.W_gate", param_kind::linear, b.w_gate);
        f(h + "mlp.W_in", param_kind::linear, b.w_fc);
        if (a.mlp_bias) f(h + "mlp.b_in", param_kind::bias, b.b_fc);
        f(h + "mlp.W_out", param_kind::linear, b.w_proj);
        if (a.mlp_bias) f(h + "mlp.b_out", param_kind::bias, b.b_proj);
    }
    if (a.final_norm) {
        f(std::string("ln_final.w"), param_kind::norm, p.lnf_w);
        if (a.norm_bias) f(std::string("ln_final.b"), param_kind::bias, p.lnf_b);
    }
    if (!a.tied) f(std::string("unembed.W_U"), param_kind::linear, p.lm_head);
}

// A parameter of `shape` whose elements are the n = product(shape) numbers at `data`, a
// view of a mapping that `owner` keeps alive (model/param_storage.hpp).
template <class Tensor, class T>
Tensor mapped_tensor(std::shared_ptr<const void> owner, const T* data, typename Tensor::shape_type shape) {
    typename Tensor::inner_strides_type strides;
    const std::size_t n = xt::compute_strides(shape, xt::layout_type::row_major, strides);
    return Tensor(param_storage<T>::view(std::move(owner), data, n), std::move(shape), std::move(strides));
}

// Every parameter in memory of its own (a view of a mapped checkpoint copied): what
// training and --init do before they write; a no-op for parameters made in memory.
template <class T>
void own_params(model_params<T>& p) {
    for_each_param(p, [](const std::string&, param_kind, auto& t) { t.storage().own(); });
}

// How many of the parameters' numbers are views of a mapped checkpoint (not copied).
template <class T>
std::size_t mapped_numbers(const model_params<T>& p) {
    std::size_t n = 0;
    for_each_param(p, [&](const std::string&, param_kind, const auto& t) { n += t.storage().mapped() ? t.size() : 0; });
    return n;
}

// Parameters allocated with the architecture's shapes and filled with zeros (norm
// weights with ones). The checkpoint reader fills them; training initialises them.
template <class T>
model_params<T> zero_params(const architecture& config);

// The same shapes allocated and not filled (no page touched until written): for a reader
// that writes every element or puts a view of its file in place (model/checkpoint*.cpp).
template <class T>
model_params<T> unfilled_params(const architecture& config);

// A parameter's shape as model_params stores it ([in, out] for linear layers), from
// its for_each_param name ("blocks.3.mlp.W_in" → [d_model, d_mlp]).
std::vector<std::size_t> param_shape(const std::string& name, const architecture& config);

// Total number of parameters (tied lm_head counted once).
std::size_t parameter_count(const architecture& config);

}  // namespace attn::model
