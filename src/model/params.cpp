// model/params.cpp — allocating a model's parameters from its architecture.
#include "model/params.hpp"

#include <algorithm>
#include <type_traits>

namespace attn::model {

template <class T>
model_params<T> zero_params(const architecture& c) {
    const std::size_t d = c.n_embd, m = c.d_mlp(), qkv = c.qkv_width(), hd = c.n_head * c.d_head();
    model_params<T> p;
    p.config = c;
    p.wte = xt::zeros<T>({c.vocab_size, d});
    if (c.positions == position_kind::learned) p.wpe = xt::zeros<T>({c.n_positions, d});
    p.blocks.resize(c.n_layer);
    for (auto& b : p.blocks) {
        b.ln1_w = xt::ones<T>({d});
        if (c.norm_bias) b.ln1_b = xt::zeros<T>({d});
        b.w_qkv = xt::zeros<T>({d, qkv});
        if (c.qkv_bias) b.b_qkv = xt::zeros<T>({qkv});
        b.w_out = xt::zeros<T>({hd, d});
        if (c.out_bias) b.b_out = xt::zeros<T>({d});
        if (!c.has_mlp()) continue;
        b.ln2_w = xt::ones<T>({d});
        if (c.norm_bias) b.ln2_b = xt::zeros<T>({d});
        if (c.mlp == mlp_kind::swiglu) b.w_gate = xt::zeros<T>({d, m});
        b.w_fc = xt::zeros<T>({d, m});
        if (c.mlp_bias) b.b_fc = xt::zeros<T>({m});
        b.w_proj = xt::zeros<T>({m, d});
        if (c.mlp_bias) b.b_proj = xt::zeros<T>({d});
    }
    if (c.final_norm) {
        p.lnf_w = xt::ones<T>({d});
        if (c.norm_bias) p.lnf_b = xt::zeros<T>({d});
    }
    if (!c.tied) p.lm_head = xt::zeros<T>({c.vocab_size, d});
    return p;
}

template <class T>
model_params<T> unfilled_params(const architecture& c) {
    model_params<T> p;
    p.config = c;
    p.blocks.resize(c.n_layer);
    for_each_param(p, [&](const std::string& name, param_kind, auto& t) {
        using tensor_t = std::decay_t<decltype(t)>;
        const auto shape = param_shape(name, c);
        typename tensor_t::shape_type s;
        std::copy(shape.begin(), shape.end(), s.begin());
        t = tensor_t::from_shape(s);
    });
    return p;
}

template model_params<float> unfilled_params<float>(const architecture&);
template model_params<double> unfilled_params<double>(const architecture&);
template model_params<float> zero_params<float>(const architecture&);
template model_params<double> zero_params<double>(const architecture&);

std::vector<std::size_t> param_shape(const std::string& name, const architecture& c) {
    const std::size_t d = c.n_embd, m = c.d_mlp(), hd = c.n_head * c.d_head();
    const auto ends = [&](const std::string& tail) { return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0; };
    if (name == "embed.W_E" || name == "unembed.W_U") return {c.vocab_size, d};
    if (name == "pos_embed.W_pos") return {c.n_positions, d};
    if (ends("attn.W_qkv")) return {d, c.qkv_width()};
    if (ends("attn.b_qkv")) return {c.qkv_width()};
    if (ends("attn.W_O")) return {hd, d};
    if (ends("mlp.W_gate") || ends("mlp.W_in")) return {d, m};
    if (ends("mlp.W_out")) return {m, d};
    if (ends("mlp.b_in")) return {m};
    return {d};  // norms, the other biases
}

std::size_t parameter_count(const architecture& c) {
    model_params<float> shell;  // the architecture and its layers, no tensor allocated
    shell.config = c;
    shell.blocks.resize(c.n_layer);
    std::size_t total = 0;
    for_each_param(shell, [&](const std::string& name, param_kind, const auto&) {
        std::size_t n = 1;
        for (const auto k : param_shape(name, c)) n *= k;
        total += n;
    });
    return total;
}

}  // namespace attn::model
