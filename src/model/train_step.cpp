// model/train_step.cpp — the whole model's training forward and backward, in named
// passes over model/train_layers, and the list of the stages they keep.
#include "model/train_step.hpp"

#include <algorithm>

#include "model/train_layers.hpp"
#include "core/error.hpp"

namespace attn::model {

using namespace training;

namespace {

template <class T>
void fill0(std::vector<T>& v) {
    std::fill(v.begin(), v.end(), T(0));
}

// The residual stream entering block l: the embeddings, or the previous block's output.
template <class T>
const std::vector<T>& resid_pre(const train_acts<T>& a, std::size_t l) {
    return l == 0 ? a.embed : a.blocks[l - 1].resid_post;
}
template <class T>
std::vector<T>& resid_pre(train_acts<T>& a, std::size_t l) {
    return l == 0 ? a.embed : a.blocks[l - 1].resid_post;
}

}  // namespace

template <class T>
train_acts<T> make_train_acts(const architecture& c, std::size_t B, std::size_t Tn) {
    if (!c.is_gpt2_family()) throw attn::error("training runs the GPT-2 family only; the model is " + describe(c));
    const std::size_t N = B * Tn, C = c.n_embd, V = c.vocab_size, H = c.n_head;
    train_acts<T> a;
    a.B = B;
    a.Tn = Tn;
    a.embed.assign(N * C, T(0));
    a.blocks.resize(c.n_layer);
    for (auto& k : a.blocks) {
        k.ln1.assign(N * C, T(0));
        k.ln1_mean.assign(N, T(0));
        k.ln1_rstd.assign(N, T(0));
        k.qkv.assign(N * 3 * C, T(0));
        k.scores.assign(B * H * Tn * Tn, T(0));
        k.pattern.assign(B * H * Tn * Tn, T(0));
        k.z.assign(N * C, T(0));
        k.attn_out.assign(N * C, T(0));
        k.resid_mid.assign(N * C, T(0));
        k.resid_post.assign(N * C, T(0));
        if (!c.has_mlp()) continue;
        k.ln2.assign(N * C, T(0));
        k.ln2_mean.assign(N, T(0));
        k.ln2_rstd.assign(N, T(0));
        k.mlp_pre.assign(N * c.d_mlp(), T(0));
        k.mlp_post.assign(N * c.d_mlp(), T(0));
        k.mlp_tanh.assign(N * c.d_mlp(), T(0));
        k.mlp_out.assign(N * C, T(0));
    }
    a.lnf.assign(N * C, T(0));
    a.lnf_mean.assign(N, T(0));
    a.lnf_rstd.assign(N, T(0));
    a.logits.assign(N * V, T(0));
    a.probs.assign(N * V, T(0));
    a.losses.assign(N, T(0));
    return a;
}

template <class T>
void zero_acts(train_acts<T>& a) {
    std::vector<std::vector<T>*> buffers{&a.embed, &a.lnf, &a.logits};  // one task each, on the training's threads
    for (auto& k : a.blocks)
        for (auto* v : {&k.ln1, &k.qkv, &k.z, &k.attn_out, &k.resid_mid, &k.ln2, &k.mlp_pre, &k.mlp_post, &k.mlp_out,
                        &k.resid_post})  // not scores and pattern: attention_backward writes them whole
            buffers.push_back(v);
    for_tasks(buffers.size(), [&](std::size_t i) { fill0(*buffers[i]); });
}

template <class T>
void zero_params_in_place(model_params<T>& p) {
    for_each_param(p, [](const std::string&, param_kind, auto& t) { std::fill(t.begin(), t.end(), T(0)); });
}

// ---- forward ---------------------------------------------------------------------

namespace {

template <class T>
void block_forward(const architecture& c, const block_params<T>& p, train_block_acts<T>& a, const T* x, std::size_t B,
                   std::size_t Tn, const stage_patch<T>* patch, std::size_t l) {
    const std::size_t N = B * Tn, C = c.n_embd, M = c.d_mlp();
    layer_norm_forward(a.ln1.data(), a.ln1_mean.data(), a.ln1_rstd.data(), x, p.ln1_w.data(), p.ln1_b.data(), N, C,
                      c.ln_eps);
    linear_forward(a.qkv.data(), a.ln1.data(), p.w_qkv.data(), p.b_qkv.data(), N, C, 3 * C);
    attention_forward(a.z.data(), a.scores.data(), a.pattern.data(), a.qkv.data(), B, Tn, C, c.n_head);
    if (patch) (*patch)("blocks." + std::to_string(l) + ".attn.hook_z", a.z.data());
    linear_forward(a.attn_out.data(), a.z.data(), p.w_out.data(), p.b_out.data(), N, C, C);
    residual_forward(a.resid_mid.data(), x, a.attn_out.data(), N * C);
    if (!c.has_mlp()) {  // attention-only: the block's output is resid_mid
        std::copy(a.resid_mid.begin(), a.resid_mid.end(), a.resid_post.begin());
        return;
    }
    layer_norm_forward(a.ln2.data(), a.ln2_mean.data(), a.ln2_rstd.data(), a.resid_mid.data(), p.ln2_w.data(),
                      p.ln2_b.data(), N, C, c.ln_eps);
    linear_forward(a.mlp_pre.data(), a.ln2.data(), p.w_fc.data(), p.b_fc.data(), N, C, M);
    gelu_forward(a.mlp_post.data(), a.mlp_tanh.data(), a.mlp_pre.data(), N * M);
    linear_forward(a.mlp_out.data(), a.mlp_post.data(), p.w_proj.data(), p.b_proj.data(), N, M, C);
    residual_forward(a.resid_post.data(), a.resid_mid.data(), a.mlp_out.data(), N * C);
}

template <class T>
const T* unembedding(const model_params<T>& p) {
    return p.config.tied ? p.wte.data() : p.lm_head.data();
}

}  // namespace

template <class T>
double train_forward(const model_params<T>& p, train_acts<T>& a, const std::int32_t* tokens,
                     const std::int32_t* targets, const stage_patch<T>* patch) {
    const architecture& c = p.config;
    const std::size_t B = a.B, Tn = a.Tn, N = B * Tn, C = c.n_embd, V = c.vocab_size;
    embed_forward(a.embed.data(), tokens, p.wte.data(), p.wpe.data(), B, Tn, C);
    for (std::size_t l = 0; l < c.n_layer; ++l) {
        if (patch) (*patch)("blocks." + std::to_string(l) + ".hook_resid_pre", resid_pre(a, l).data());
        block_forward(c, p.blocks[l], a.blocks[l], resid_pre(a, l).data(), B, Tn, patch, l);
    }
    const T* last = resid_pre(a, c.n_layer).data();  // [N, C]
    layer_norm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), last, p.lnf_w.data(), p.lnf_b.data(), N,
                      C, c.ln_eps);
    unembed_forward(a.logits.data(), a.lnf.data(), unembedding(p), N, C, V);
    return crossentropy_forward(a.probs.data(), a.losses.data(), a.logits.data(), targets, N, V);
}

// ---- backward --------------------------------------------------------------------

namespace {

template <class T>
void block_backward(const architecture& c, const block_params<T>& p, block_params<T>& g, const train_block_acts<T>& a,
                    train_block_acts<T>& ga, const T* x, T* dx, std::size_t B, std::size_t Tn) {
    const std::size_t N = B * Tn, C = c.n_embd, M = c.d_mlp();
    if (c.has_mlp()) {
        residual_backward(ga.resid_mid.data(), ga.mlp_out.data(), ga.resid_post.data(), N * C);
        linear_backward(ga.mlp_post.data(), g.w_proj.data(), g.b_proj.data(), ga.mlp_out.data(), a.mlp_post.data(),
                        p.w_proj.data(), N, M, C);
        gelu_backward(ga.mlp_pre.data(), a.mlp_pre.data(), a.mlp_tanh.data(), ga.mlp_post.data(), N * M);
        linear_backward(ga.ln2.data(), g.w_fc.data(), g.b_fc.data(), ga.mlp_pre.data(), a.ln2.data(), p.w_fc.data(),
                        N, C, M);
        layer_norm_backward(ga.resid_mid.data(), g.ln2_w.data(), g.ln2_b.data(), ga.ln2.data(), a.resid_mid.data(),
                           p.ln2_w.data(), a.ln2_mean.data(), a.ln2_rstd.data(), N, C);
    } else {
        for (std::size_t i = 0; i < N * C; ++i) ga.resid_mid[i] += ga.resid_post[i];
    }
    residual_backward(dx, ga.attn_out.data(), ga.resid_mid.data(), N * C);
    linear_backward(ga.z.data(), g.w_out.data(), g.b_out.data(), ga.attn_out.data(), a.z.data(), p.w_out.data(), N,
                    C, C);
    attention_backward(ga.qkv.data(), ga.scores.data(), ga.pattern.data(), ga.z.data(), a.qkv.data(),
                       a.pattern.data(), B, Tn, C, c.n_head);
    linear_backward(ga.ln1.data(), g.w_qkv.data(), g.b_qkv.data(), ga.qkv.data(), a.ln1.data(), p.w_qkv.data(), N,
                    C, 3 * C);
    layer_norm_backward(dx, g.ln1_w.data(), g.ln1_b.data(), ga.ln1.data(), x, p.ln1_w.data(), a.ln1_mean.data(),
                       a.ln1_rstd.data(), N, C);
}

}  // namespace

template <class T>
void train_backward(const model_params<T>& p, model_params<T>& g, const train_acts<T>& a, train_acts<T>& ga,
                    const std::int32_t* tokens, const std::int32_t* targets) {
    const architecture& c = p.config;
    const std::size_t B = a.B, Tn = a.Tn, N = B * Tn, C = c.n_embd, V = c.vocab_size;
    zero_params_in_place(g);
    zero_acts(ga);
    crossentropy_softmax_backward(ga.logits.data(), a.probs.data(), targets, N, V);
    T* dunembed = c.tied ? g.wte.data() : g.lm_head.data();
    unembed_backward(ga.lnf.data(), dunembed, ga.logits.data(), a.lnf.data(), unembedding(p), N, C, V);
    layer_norm_backward(resid_pre(ga, c.n_layer).data(), g.lnf_w.data(), g.lnf_b.data(), ga.lnf.data(),
                       resid_pre(a, c.n_layer).data(), p.lnf_w.data(), a.lnf_mean.data(), a.lnf_rstd.data(), N, C);
    for (std::size_t l = c.n_layer; l-- > 0;)
        block_backward(c, p.blocks[l], g.blocks[l], a.blocks[l], ga.blocks[l], resid_pre(a, l).data(),
                       resid_pre(ga, l).data(), B, Tn);
    embed_backward(g.wte.data(), g.wpe.data(), ga.embed.data(), tokens, B, Tn, C);
}

// ---- the stages, named -----------------------------------------------------------

template <class T>
std::vector<train_stage<T>> list_stages(const architecture& c, const train_acts<T>& a, const std::string& prefix) {
    const std::size_t B = a.B, Tn = a.Tn, C = c.n_embd, H = c.n_head, hs = c.d_head();
    const bool grad = !prefix.empty();
    std::vector<train_stage<T>> s;
    auto add = [&](const std::string& name, std::vector<std::size_t> shape, const std::vector<T>& v) {
        s.push_back({prefix + name, std::move(shape), v.data()});
    };
    add("blocks.0.hook_resid_pre", {B, Tn, C}, a.embed);
    for (std::size_t l = 0; l < c.n_layer; ++l) {
        const auto& k = a.blocks[l];
        const std::string b = "blocks." + std::to_string(l) + ".";
        add(b + "ln1.out", {B, Tn, C}, k.ln1);  // after weight and bias (the forward's norm_acts::out)
        add(b + "attn.hook_qkv", {B, Tn, 3 * C}, k.qkv);
        add(b + "attn.hook_attn_scores", {B, H, Tn, Tn}, k.scores);
        add(b + "attn.hook_pattern", {B, H, Tn, Tn}, k.pattern);
        add(b + "attn.hook_z", {B, Tn, H, hs}, k.z);
        add(b + "hook_attn_out", {B, Tn, C}, k.attn_out);
        add(b + "hook_resid_mid", {B, Tn, C}, k.resid_mid);
        if (c.has_mlp()) {
            add(b + "ln2.out", {B, Tn, C}, k.ln2);
            add(b + "mlp.hook_pre", {B, Tn, c.d_mlp()}, k.mlp_pre);
            add(b + "mlp.hook_post", {B, Tn, c.d_mlp()}, k.mlp_post);
            add(b + "hook_mlp_out", {B, Tn, C}, k.mlp_out);
        }
        add(b + "hook_resid_post", {B, Tn, C}, k.resid_post);
    }
    add("ln_final.out", {B, Tn, C}, a.lnf);
    add("logits", {B, Tn, c.vocab_size}, a.logits);
    if (!grad) add("probs", {B, Tn, c.vocab_size}, a.probs);
    return s;
}

#define ATTN_TRAIN_STEP(T)                                                                                       \
    template train_acts<T> make_train_acts<T>(const architecture&, std::size_t, std::size_t);                      \
    template void zero_acts<T>(train_acts<T>&);                                                                  \
    template void zero_params_in_place<T>(model_params<T>&);                                                       \
    template double train_forward<T>(const model_params<T>&, train_acts<T>&, const std::int32_t*,                  \
                                     const std::int32_t*, const stage_patch<T>*);                                \
    template void train_backward<T>(const model_params<T>&, model_params<T>&, const train_acts<T>&, train_acts<T>&, \
                                    const std::int32_t*, const std::int32_t*);                                   \
    template std::vector<train_stage<T>> list_stages<T>(const architecture&, const train_acts<T>&, const std::string&);

ATTN_TRAIN_STEP(float)
ATTN_TRAIN_STEP(double)

}  // namespace attn::model
