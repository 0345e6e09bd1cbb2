// model/gpt_params.cpp — allocating a model's parameters from its config.
#include "model/gpt_params.hpp"

namespace attn::model {

template <class T>
gpt_params<T> zero_params(const gpt_config& c) {
    const std::size_t d = c.n_embd, m = c.d_mlp();
    gpt_params<T> p;
    p.config = c;
    p.wte = xt::zeros<T>({c.vocab_size, d});
    p.wpe = xt::zeros<T>({c.n_positions, d});
    p.blocks.resize(c.n_layer);
    for (auto& b : p.blocks) {
        b.ln1_w = xt::ones<T>({d});
        b.ln1_b = xt::zeros<T>({d});
        b.w_qkv = xt::zeros<T>({d, 3 * d});
        b.b_qkv = xt::zeros<T>({3 * d});
        b.w_out = xt::zeros<T>({d, d});
        b.b_out = xt::zeros<T>({d});
        if (!c.has_mlp) continue;
        b.ln2_w = xt::ones<T>({d});
        b.ln2_b = xt::zeros<T>({d});
        b.w_fc = xt::zeros<T>({d, m});
        b.b_fc = xt::zeros<T>({m});
        b.w_proj = xt::zeros<T>({m, d});
        b.b_proj = xt::zeros<T>({d});
    }
    p.lnf_w = xt::ones<T>({d});
    p.lnf_b = xt::zeros<T>({d});
    if (!c.tied) p.lm_head = xt::zeros<T>({c.vocab_size, d});
    return p;
}

template gpt_params<float> zero_params<float>(const gpt_config&);
template gpt_params<double> zero_params<double>(const gpt_config&);

std::size_t parameter_count(const gpt_config& c) {
    const std::size_t d = c.n_embd, m = c.d_mlp();
    std::size_t per_block = 2 * d + d * 3 * d + 3 * d + d * d + d;
    if (c.has_mlp) per_block += 2 * d + d * m + m + m * d + d;
    std::size_t total = c.vocab_size * d + c.n_positions * d + c.n_layer * per_block + 2 * d;
    if (!c.tied) total += c.vocab_size * d;
    return total;
}

}  // namespace attn::model
