// model/gpt_forward.cpp — the GPT forward (see gpt_forward.hpp): allocation of every
// kept buffer, then the passes of model/layers.hpp in order, block by block.
#include "model/gpt_forward.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "model/hooks.hpp"
#include "model/layers.hpp"
#include "core/matmul.hpp"

namespace attn::model {

void check_tokens(const architecture& c, const std::vector<std::vector<int>>& tokens) {
    if (!c.is_gpt2_family())
        throw attn::error("this forward runs the GPT-2 family only; the model is " + describe(c));
    if (tokens.empty()) throw attn::error("no tokens: give at least one sequence");
    const std::size_t n = tokens[0].size();
    for (std::size_t b = 0; b < tokens.size(); ++b) {
        const auto& row = tokens[b];
        const std::string which = tokens.size() > 1 ? "sequence " + std::to_string(b + 1) + ": " : "";
        if (row.empty()) throw attn::error(which + "no tokens");
        if (row.size() != n)
            throw attn::error(which + std::to_string(row.size()) + " tokens, but sequence 1 has " +
                                        std::to_string(n) + " (every sequence of a batch has the same length)");
        if (row.size() > c.n_positions)
            throw attn::error(which + std::to_string(row.size()) + " tokens, but the model has " +
                                        std::to_string(c.n_positions) + " positions");
        for (std::size_t i = 0; i < row.size(); ++i)
            if (row[i] < 0 || static_cast<std::size_t>(row[i]) >= c.vocab_size)
                throw attn::error(which + "token " + std::to_string(i + 1) + " is " + std::to_string(row[i]) +
                                            ", outside the vocabulary 0 … " + std::to_string(c.vocab_size - 1));
    }
}

namespace {

template <class T>
void alloc_norm(norm_acts<T>& a, std::size_t B, std::size_t P, std::size_t d) {
    a.normalized = act3<T>::from_shape({B, P, d});
    a.mean = act2<T>::from_shape({B, P});
    a.rstd = act2<T>::from_shape({B, P});
    a.out = act3<T>::from_shape({B, P, d});
}

template <class T>
void alloc_block(block_acts<T>& a, const architecture& c, std::size_t B, std::size_t P) {
    const std::size_t d = c.n_embd, H = c.n_head, dh = c.d_head(), m = c.d_mlp();
    a.resid_pre = act3<T>::from_shape({B, P, d});
    alloc_norm(a.ln1, B, P, d);
    a.q = act4<T>::from_shape({B, P, H, dh});
    a.k = act4<T>::from_shape({B, P, H, dh});
    a.v = act4<T>::from_shape({B, P, H, dh});
    a.scores = act4<T>::from_shape({B, H, P, P});
    a.pattern = act4<T>::from_shape({B, H, P, P});
    a.z = act4<T>::from_shape({B, P, H, dh});
    a.attn_out = act3<T>::from_shape({B, P, d});
    a.resid_post = act3<T>::from_shape({B, P, d});
    if (!c.has_mlp()) return;
    a.resid_mid = act3<T>::from_shape({B, P, d});
    alloc_norm(a.ln2, B, P, d);
    a.mlp_pre = act3<T>::from_shape({B, P, m});
    a.mlp_post = act3<T>::from_shape({B, P, m});
    a.mlp_out = act3<T>::from_shape({B, P, d});
}

template <class T>
void norm_pass(norm_acts<T>& a, const T* x, const param1<T>& w, const param1<T>& b, std::size_t n, std::size_t d,
               double eps) {
    layer_norm_forward(a.normalized.data(), a.mean.data(), a.rstd.data(), a.out.data(), x, w.data(), b.data(), n, d, eps);
}

// One block: attention sub-layer, then (with MLP) the MLP sub-layer. x: [N, d] its input.
template <class T>
void block_forward(block_acts<T>& a, const block_params<T>& w, const architecture& c, const T* x, std::size_t B,
                   std::size_t P) {
    const std::size_t N = B * P, d = c.n_embd, m = c.d_mlp();
    std::copy(x, x + N * d, a.resid_pre.data());
    norm_pass(a.ln1, x, w.ln1_w, w.ln1_b, N, d, c.ln_eps);
    // the fused c_attn as three column slices: q | k | v
    linear_forward(a.q.data(), a.ln1.out.data(), w.w_qkv.data(), w.b_qkv.data(), N, d, d, 3 * d, 0);
    linear_forward(a.k.data(), a.ln1.out.data(), w.w_qkv.data(), w.b_qkv.data(), N, d, d, 3 * d, d);
    linear_forward(a.v.data(), a.ln1.out.data(), w.w_qkv.data(), w.b_qkv.data(), N, d, d, 3 * d, 2 * d);
    attention_forward(a.scores.data(), a.pattern.data(), a.z.data(), a.q.data(), a.k.data(), a.v.data(), B, P,
                      c.n_head, c.d_head());
    linear_forward(a.attn_out.data(), a.z.data(), w.w_out.data(), w.b_out.data(), N, d, d, d, 0);
    if (!c.has_mlp()) {
        residual_forward(a.resid_post.data(), x, a.attn_out.data(), N * d);
        return;
    }
    residual_forward(a.resid_mid.data(), x, a.attn_out.data(), N * d);
    norm_pass(a.ln2, a.resid_mid.data(), w.ln2_w, w.ln2_b, N, d, c.ln_eps);
    linear_forward(a.mlp_pre.data(), a.ln2.out.data(), w.w_fc.data(), w.b_fc.data(), N, d, m, m, 0);
    gelu_forward(a.mlp_post.data(), a.mlp_pre.data(), N * m);
    linear_forward(a.mlp_out.data(), a.mlp_post.data(), w.w_proj.data(), w.b_proj.data(), N, m, d, d, 0);
    residual_forward(a.resid_post.data(), a.resid_mid.data(), a.mlp_out.data(), N * d);
}

}  // namespace

template <class T>
gpt_acts<T> gpt_forward(const model_params<T>& p, const std::vector<std::vector<int>>& tokens) {
    const architecture& c = p.config;
    check_tokens(c, tokens);
    gpt_acts<T> a;
    const std::size_t B = tokens.size(), P = tokens[0].size(), N = B * P, d = c.n_embd, V = c.vocab_size;
    a.batch = B;
    a.n_pos = P;
    a.tokens = tokens;
    std::vector<int> flat;  // [N]
    for (const auto& row : tokens) flat.insert(flat.end(), row.begin(), row.end());

    a.embed = act3<T>::from_shape({B, P, d});
    a.pos_embed = act3<T>::from_shape({B, P, d});
    embed_forward(a.embed.data(), a.pos_embed.data(), flat.data(), p.wte.data(), p.wpe.data(), N, P, d);
    std::vector<T> x0(N * d);  // [N, d] the residual stream entering block 0
    residual_forward(x0.data(), a.embed.data(), a.pos_embed.data(), N * d);

    a.blocks.resize(c.n_layer);
    const T* x = x0.data();  // [N, d] the stream entering the next block
    for (std::size_t l = 0; l < c.n_layer; ++l) {
        alloc_block(a.blocks[l], c, B, P);
        block_forward(a.blocks[l], p.blocks[l], c, x, B, P);
        x = a.blocks[l].resid_post.data();
    }

    alloc_norm(a.ln_final, B, P, d);
    norm_pass(a.ln_final, x, p.lnf_w, p.lnf_b, N, d, c.ln_eps);
    a.logits = act3<T>::from_shape({B, P, V});
    const param2<T>& unembed = c.tied ? p.wte : p.lm_head;  // [V, d]
    matmul(false, true, N, V, d, T(1), a.ln_final.out.data(), d, unembed.data(), d, T(0), a.logits.data(), V);
    a.probs = act3<T>::from_shape({B, P, V});
    softmax_rows_forward(a.probs.data(), a.logits.data(), N, V);
    return a;
}

template <class T>
const T* hook_data(const gpt_acts<T>& a, const hook_name& h, std::vector<std::size_t>* shape) {
    if (!h.info) return nullptr;
    const std::string n = h.info->name;
    const auto give = [&](const auto& t) -> const T* {
        if (t.size() == 0) return nullptr;
        if (shape) shape->assign(t.shape().begin(), t.shape().end());
        return t.data();
    };
    if (h.info->scope == hook_scope::model) {
        if (n == "hook_embed") return give(a.embed);
        if (n == "hook_pos_embed") return give(a.pos_embed);
        if (n == "ln_final.hook_normalized") return give(a.ln_final.normalized);
        if (n == "logits") return give(a.logits);
        if (n == "probs") return give(a.probs);
        return nullptr;
    }
    if (h.layer >= a.blocks.size()) return nullptr;
    const block_acts<T>& b = a.blocks[h.layer];
    if (n == "hook_resid_pre") return give(b.resid_pre);
    if (n == "ln1.hook_normalized") return give(b.ln1.normalized);
    if (n == "attn.hook_q") return give(b.q);
    if (n == "attn.hook_k") return give(b.k);
    if (n == "attn.hook_v") return give(b.v);
    if (n == "attn.hook_attn_scores") return give(b.scores);
    if (n == "attn.hook_pattern") return give(b.pattern);
    if (n == "attn.hook_z") return give(b.z);
    if (n == "hook_attn_out") return give(b.attn_out);
    if (n == "hook_resid_mid") return give(b.resid_mid);
    if (n == "ln2.hook_normalized") return give(b.ln2.normalized);
    if (n == "mlp.hook_pre") return give(b.mlp_pre);
    if (n == "mlp.hook_post") return give(b.mlp_post);
    if (n == "hook_mlp_out") return give(b.mlp_out);
    if (n == "hook_resid_post") return give(b.resid_post);
    return nullptr;
}

template gpt_acts<float> gpt_forward<float>(const model_params<float>&, const std::vector<std::vector<int>>&);
template gpt_acts<double> gpt_forward<double>(const model_params<double>&, const std::vector<std::vector<int>>&);
template const float* hook_data<float>(const gpt_acts<float>&, const hook_name&, std::vector<std::size_t>*);
template const double* hook_data<double>(const gpt_acts<double>&, const hook_name&, std::vector<std::size_t>*);

}  // namespace attn::model
