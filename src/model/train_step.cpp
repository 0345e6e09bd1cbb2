// model/train_step.cpp — the whole model's training forward and backward, in named
// passes over the components of model/train_parts (chosen by the architecture), and the
// list of the stages they keep.
#include "model/train_step.hpp"

#include <algorithm>
#include <utility>

#include "model/train_layers.hpp"
#include "model/train_parts.hpp"
#include "model/stop_request.hpp"
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

namespace {

// The buffers the Llama family's components add to one block (see train_block_acts).
template <class T>
void make_llama_block(const architecture& c, train_block_acts<T>& k, std::size_t N) {
    const std::size_t C = c.n_embd, Hd = c.n_head * c.d_head(), KVd = c.kv_heads() * c.d_head();
    k.ln1_normalized.assign(N * C, T(0));  // hook_normalized of either norm
    if (c.has_mlp()) k.ln2_normalized.assign(N * C, T(0));
    if (c.norm == norm_kind::rms_norm) {
        k.ln1_scale.assign(N, T(0));
        if (c.has_mlp()) k.ln2_scale.assign(N, T(0));
    }
    if (parts::split_attention(c)) {
        k.q.assign(N * Hd, T(0));
        k.k.assign(N * KVd, T(0));
        k.v.assign(N * KVd, T(0));
        if (c.positions == position_kind::rotary) k.rot_q.assign(N * Hd, T(0)), k.rot_k.assign(N * KVd, T(0));
    }
    if (c.mlp == mlp_kind::swiglu) k.mlp_pre_linear.assign(N * c.d_mlp(), T(0));
}

llama::rotary_table rotary_of(const architecture& c, std::size_t Tn) {
    llama::rotary_spec spec;
    spec.theta = c.rope_theta;
    spec.frequencies = c.rope_frequencies;  // rescaled (rope_scaling), or empty
    spec.dims = c.rotated_dims();
    spec.pairing = c.pairing == rotary_pairing::adjacent ? llama::rotary_pairing::adjacent
                                                         : llama::rotary_pairing::half_split;
    return llama::make_rotary_table(spec, c.d_head(), Tn);
}

}  // namespace

template <class T>
train_block_acts<T> make_block_acts(const architecture& c, std::size_t B, std::size_t Tn, bool with_grids) {
    const std::size_t N = B * Tn, C = c.n_embd, H = c.n_head;
    train_block_acts<T> k;
    k.ln1.assign(N * C, T(0));
    k.ln1_mean.assign(N, T(0));
    k.ln1_rstd.assign(N, T(0));
    k.qkv.assign(N * c.qkv_width(), T(0));
    if (with_grids) k.scores.assign(B * H * Tn * Tn, T(0)), k.pattern.assign(B * H * Tn * Tn, T(0));
    k.z.assign(N * C, T(0));
    k.attn_out.assign(N * C, T(0));
    k.resid_mid.assign(N * C, T(0));
    k.resid_post.assign(N * C, T(0));
    make_llama_block(c, k, N);
    if (!c.has_mlp()) return k;
    k.ln2.assign(N * C, T(0));
    k.ln2_mean.assign(N, T(0));
    k.ln2_rstd.assign(N, T(0));
    k.mlp_pre.assign(N * c.d_mlp(), T(0));
    k.mlp_post.assign(N * c.d_mlp(), T(0));
    if (c.mlp == mlp_kind::gelu_tanh) k.mlp_tanh.assign(N * c.d_mlp(), T(0));
    k.mlp_out.assign(N * C, T(0));
    return k;
}

template <class T>
train_acts<T> make_train_acts(const architecture& c, std::size_t B, std::size_t Tn, std::size_t kept_blocks,
                              bool with_outputs, bool with_grids) {
    parts::check_trainable(c);
    const std::size_t N = B * Tn, C = c.n_embd, V = c.vocab_size;
    train_acts<T> a;
    a.B = B;
    a.Tn = Tn;
    a.embed.assign(N * C, T(0));
    for (std::size_t l = 0; l < std::min(kept_blocks, c.n_layer); ++l) {
        check_stop();  // Ctrl-C: a layer's buffers take a second at thousands of tokens (page faults)
        a.blocks.push_back(make_block_acts<T>(c, B, Tn, with_grids));
    }
    a.lnf.assign(N * C, T(0));
    a.lnf_mean.assign(N, T(0));
    a.lnf_rstd.assign(N, T(0));
    a.lnf_normalized.assign(N * C, T(0));
    if (c.norm == norm_kind::rms_norm) a.lnf_scale.assign(N, T(0));
    if (with_outputs) a.logits.assign(N * V, T(0)), a.probs.assign(N * V, T(0));
    a.losses.assign(N, T(0));
    if (c.positions == position_kind::rotary) a.rotary = rotary_of(c, Tn);
    return a;
}

template <class T>
void zero_acts(train_acts<T>& a) {
    std::vector<std::vector<T>*> buffers{&a.embed, &a.lnf, &a.logits};  // one task each, on the training's threads
    for (auto& k : a.blocks)
        for (auto* v : {&k.ln1, &k.qkv, &k.z, &k.attn_out, &k.resid_mid, &k.ln2, &k.mlp_pre, &k.mlp_post, &k.mlp_out,
                        &k.resid_post, &k.q, &k.k, &k.v, &k.rot_q, &k.rot_k, &k.mlp_pre_linear})  // not scores and pattern: attention_backward writes them whole
            buffers.push_back(v);
    for_tasks(buffers.size(), [&](std::size_t i) { fill0(*buffers[i]); });
}

template <class T>
void zero_params_in_place(model_params<T>& p) {
    std::vector<std::pair<T*, std::size_t>> tensors;  // one task each, on the training's threads
    for_each_param(p, [&](const std::string&, param_kind, auto& t) { tensors.emplace_back(t.data(), t.size()); });
    for_tasks(tensors.size(), [&](std::size_t i) { std::fill(tensors[i].first, tensors[i].first + tensors[i].second, T(0)); });
}

// ---- forward ---------------------------------------------------------------------

namespace {

template <class T>
parts::norm_buffers<T> ln1_of(train_block_acts<T>& a) {
    return {a.ln1, a.ln1_mean, a.ln1_rstd, a.ln1_normalized, a.ln1_scale};
}
template <class T>
parts::norm_buffers<T> ln2_of(train_block_acts<T>& a) {
    return {a.ln2, a.ln2_mean, a.ln2_rstd, a.ln2_normalized, a.ln2_scale};
}
template <class T>
parts::norm_buffers<T> lnf_of(train_acts<T>& a) {
    return {a.lnf, a.lnf_mean, a.lnf_rstd, a.lnf_normalized, a.lnf_scale};
}
// The backward reads the forward's buffers through the same view (never writing them).
template <class T>
parts::norm_buffers<T> ln1_of(const train_block_acts<T>& a) { return ln1_of(const_cast<train_block_acts<T>&>(a)); }
template <class T>
parts::norm_buffers<T> ln2_of(const train_block_acts<T>& a) { return ln2_of(const_cast<train_block_acts<T>&>(a)); }
template <class T>
parts::norm_buffers<T> lnf_of(const train_acts<T>& a) { return lnf_of(const_cast<train_acts<T>&>(a)); }

template <class T>
const T* unembedding(const model_params<T>& p) {
    return p.config.tied ? p.wte.data() : p.lm_head.data();
}

}  // namespace

template <class T>
void forward_block(const model_params<T>& params, std::size_t l, train_block_acts<T>& a, const T* x,
                   const llama::rotary_table& rot, std::size_t B, std::size_t Tn, const stage_patch<T>* patch) {
    const architecture& c = params.config;
    const block_params<T>& p = params.blocks[l];
    const std::size_t N = B * Tn, C = c.n_embd, Hd = c.n_head * c.d_head();
    parts::norm_forward(c, ln1_of(a), x, p.ln1_w, p.ln1_b, N);
    parts::attention_forward(c, p, a, rot, B, Tn);
    if (patch) (*patch)("blocks." + std::to_string(l) + ".attn.hook_z", a.z.data());
    linear_residual_forward(a.attn_out.data(), a.resid_mid.data(), x, a.z.data(), p.w_out.data(),
                            p.b_out.size() ? p.b_out.data() : nullptr, N, Hd, C);
    if (!c.has_mlp()) {  // attention-only: the block's output is resid_mid
        std::copy(a.resid_mid.begin(), a.resid_mid.end(), a.resid_post.begin());
        return;
    }
    check_stop();  // between the attention and the MLP too: half a layer at most
    parts::norm_forward(c, ln2_of(a), a.resid_mid.data(), p.ln2_w, p.ln2_b, N);
    parts::mlp_forward(c, p, a, N, a.resid_mid.data(), a.resid_post.data());  // resid_post = resid_mid + mlp_out
}

template <class T>
void forward_embed(const model_params<T>& p, train_acts<T>& a, const std::int32_t* tokens) {
    const bool learned = p.config.positions == position_kind::learned;
    embed_forward(a.embed.data(), tokens, p.wte.data(), learned ? p.wpe.data() : nullptr, a.B, a.Tn, p.config.n_embd);
}

template <class T>
double forward_head(const model_params<T>& p, train_acts<T>& a, const T* x, T* logits, T* probs,
                    const std::int32_t* targets) {
    const architecture& c = p.config;
    const std::size_t N = a.B * a.Tn, C = c.n_embd, V = c.vocab_size;
    parts::norm_forward(c, lnf_of(a), x, p.lnf_w, p.lnf_b, N);
    unembed_forward(logits, a.lnf.data(), unembedding(p), N, C, V);
    return crossentropy_forward(probs, a.losses.data(), logits, targets, N, V);
}

template <class T>
double train_forward(const model_params<T>& p, train_acts<T>& a, const std::int32_t* tokens,
                     const std::int32_t* targets, const stage_patch<T>* patch) {
    const architecture& c = p.config;
    const std::size_t B = a.B, Tn = a.Tn;
    forward_embed(p, a, tokens);
    for (std::size_t l = 0; l < c.n_layer; ++l) {
        check_stop();  // Ctrl-C within a layer's time (model/stop_request)
        if (patch) (*patch)("blocks." + std::to_string(l) + ".hook_resid_pre", resid_pre(a, l).data());
        forward_block(p, l, a.blocks[l], resid_pre(a, l).data(), a.rotary, B, Tn, patch);
    }
    check_stop();
    return forward_head(p, a, resid_pre(a, c.n_layer).data(), a.logits.data(), a.probs.data(), targets);
}

// ---- backward --------------------------------------------------------------------

namespace {

template <class T>
void block_backward(const architecture& c, const block_params<T>& p, block_params<T>& g, const train_block_acts<T>& a,
                    train_block_acts<T>& ga, const T* x, T* dx, const llama::rotary_table& rot, std::size_t B,
                    std::size_t Tn) {
    const std::size_t N = B * Tn, C = c.n_embd, Hd = c.n_head * c.d_head();
    if (c.has_mlp()) {
        residual_backward(ga.resid_mid.data(), ga.mlp_out.data(), ga.resid_post.data(), N * C, grad_mode::write);
        parts::mlp_backward(c, p, g, a, ga, N);
        parts::norm_backward(c, ga.resid_mid.data(), g.ln2_w, g.ln2_b, ga.ln2, a.resid_mid.data(), p.ln2_w, ln2_of(a),
                             N, grad_mode::add);
    } else {
        for (std::size_t i = 0; i < N * C; ++i) ga.resid_mid[i] = T(0) + ga.resid_post[i];
    }
    check_stop();
    residual_backward(dx, ga.attn_out.data(), ga.resid_mid.data(), N * C, grad_mode::write);
    linear_backward(ga.z.data(), g.w_out.data(), g.b_out.size() ? g.b_out.data() : nullptr, ga.attn_out.data(),
                    a.z.data(), p.w_out.data(), N, Hd, C, grad_mode::write);
    parts::attention_backward(c, p, g, a, ga, rot, B, Tn);
    parts::norm_backward(c, dx, g.ln1_w, g.ln1_b, ga.ln1, x, p.ln1_w, ln1_of(a), N, grad_mode::add);
}

}  // namespace

template <class T>
void train_backward(const model_params<T>& p, model_params<T>& g, const train_acts<T>& a, train_acts<T>& ga,
                    const std::int32_t* tokens, const std::int32_t* targets) {
    const architecture& c = p.config;
    const std::size_t B = a.B, Tn = a.Tn, N = B * Tn, C = c.n_embd, V = c.vocab_size;
    zero_params_in_place(g);
    // No zero_acts(ga): each gradient buffer's first contribution writes it (grad_mode::write).
    crossentropy_softmax_backward(ga.logits.data(), a.probs.data(), targets, N, V);
    T* dunembed = c.tied ? g.wte.data() : g.lm_head.data();
    unembed_backward(ga.lnf.data(), dunembed, ga.logits.data(), a.lnf.data(), unembedding(p), N, C, V,
                     grad_mode::write);
    parts::norm_backward(c, resid_pre(ga, c.n_layer).data(), g.lnf_w, g.lnf_b, ga.lnf, resid_pre(a, c.n_layer).data(),
                         p.lnf_w, lnf_of(a), N, grad_mode::write);
    for (std::size_t l = c.n_layer; l-- > 0;) {
        check_stop();
        block_backward(c, p.blocks[l], g.blocks[l], a.blocks[l], ga.blocks[l], resid_pre(a, l).data(),
                       resid_pre(ga, l).data(), a.rotary, B, Tn);
    }
    const bool learned = c.positions == position_kind::learned;
    embed_backward(g.wte.data(), learned ? g.wpe.data() : nullptr, ga.embed.data(), tokens, B, Tn, C);
}

// ---- the stages, named -----------------------------------------------------------

namespace {

// Adds one stage: its name (prefix + name), shape and buffer.
template <class T>
struct stage_list {
    std::vector<train_stage<T>>& out;
    const std::string& prefix;
    void add(const std::string& name, std::vector<std::size_t> shape, const std::vector<T>& v) const {
        out.push_back({prefix + name, std::move(shape), v.data()});
    }
    // A score grid, or (empty: not kept) its first fault as attention found it.
    void add_grid(const std::string& name, std::vector<std::size_t> shape, const std::vector<T>& v,
                  std::size_t fault) const {
        out.push_back({prefix + name, std::move(shape), v.empty() ? nullptr : v.data(), fault});
    }
};

// A norm's stages: RMSNorm's hook_scale [B, T, 1] and either norm's hook_normalized
// (forward only: the backward fills neither), then its output after the weight.
template <class T>
void add_norm(const architecture& c, const stage_list<T>& s, const std::string& name, std::size_t B, std::size_t Tn,
              const std::vector<T>& out, const std::vector<T>& normalized, const std::vector<T>& scale) {
    if (c.norm == norm_kind::rms_norm && s.prefix.empty()) s.add(name + ".hook_scale", {B, Tn, 1}, scale);
    if (s.prefix.empty()) s.add(name + ".hook_normalized", {B, Tn, c.n_embd}, normalized);
    s.add(name + ".out", {B, Tn, c.n_embd}, out);
}

template <class T>
void add_attention(const architecture& c, const stage_list<T>& s, const std::string& b, const train_block_acts<T>& k,
                   std::size_t B, std::size_t Tn) {
    const std::size_t H = c.n_head, KV = c.kv_heads(), hs = c.d_head();
    if (!parts::split_attention(c)) {
        s.add(b + "attn.hook_qkv", {B, Tn, c.qkv_width()}, k.qkv);
    } else {
        s.add(b + "attn.hook_q", {B, Tn, H, hs}, k.q);
        s.add(b + "attn.hook_k", {B, Tn, KV, hs}, k.k);
        s.add(b + "attn.hook_v", {B, Tn, KV, hs}, k.v);
        if (c.positions == position_kind::rotary) {
            s.add(b + "attn.hook_rot_q", {B, Tn, H, hs}, k.rot_q);
            s.add(b + "attn.hook_rot_k", {B, Tn, KV, hs}, k.rot_k);
        }
    }
    s.add_grid(b + "attn.hook_attn_scores", {B, H, Tn, Tn}, k.scores, k.unkept.scores);
    s.add_grid(b + "attn.hook_pattern", {B, H, Tn, Tn}, k.pattern, k.unkept.pattern);
    s.add(b + "attn.hook_z", {B, Tn, H, hs}, k.z);
}

template <class T>
void add_mlp(const architecture& c, const stage_list<T>& s, const std::string& b, const train_block_acts<T>& k,
             std::size_t B, std::size_t Tn) {
    add_norm(c, s, b + "ln2", B, Tn, k.ln2, k.ln2_normalized, k.ln2_scale);
    s.add(b + "mlp.hook_pre", {B, Tn, c.d_mlp()}, k.mlp_pre);
    if (c.mlp == mlp_kind::swiglu) s.add(b + "mlp.hook_pre_linear", {B, Tn, c.d_mlp()}, k.mlp_pre_linear);
    s.add(b + "mlp.hook_post", {B, Tn, c.d_mlp()}, k.mlp_post);
    s.add(b + "hook_mlp_out", {B, Tn, c.n_embd}, k.mlp_out);
}

}  // namespace

template <class T>
void list_block_stages(const architecture& c, const train_block_acts<T>& k, std::size_t l, std::size_t B,
                       std::size_t Tn, std::vector<train_stage<T>>& out, const std::string& prefix) {
    const stage_list<T> s{out, prefix};
    const std::string b = "blocks." + std::to_string(l) + ".";
    add_norm(c, s, b + "ln1", B, Tn, k.ln1, k.ln1_normalized, k.ln1_scale);  // ln1.out: after weight and bias
    add_attention(c, s, b, k, B, Tn);
    s.add(b + "hook_attn_out", {B, Tn, c.n_embd}, k.attn_out);
    s.add(b + "hook_resid_mid", {B, Tn, c.n_embd}, k.resid_mid);
    if (c.has_mlp()) add_mlp(c, s, b, k, B, Tn);
    s.add(b + "hook_resid_post", {B, Tn, c.n_embd}, k.resid_post);
}

template <class T>
void list_head_stages(const architecture& c, const train_acts<T>& a, const T* logits, const T* probs,
                      std::vector<train_stage<T>>& out, const std::string& prefix) {
    const stage_list<T> s{out, prefix};
    const std::size_t B = a.B, Tn = a.Tn;
    add_norm(c, s, "ln_final", B, Tn, a.lnf, a.lnf_normalized, a.lnf_scale);
    out.push_back({prefix + "logits", {B, Tn, c.vocab_size}, logits});
    if (prefix.empty()) out.push_back({"probs", {B, Tn, c.vocab_size}, probs});
}

template <class T>
std::vector<train_stage<T>> list_stages(const architecture& c, const train_acts<T>& a, const std::string& prefix) {
    std::vector<train_stage<T>> out;
    out.push_back({prefix + "blocks.0.hook_resid_pre", {a.B, a.Tn, c.n_embd}, a.embed.data()});
    for (std::size_t l = 0; l < c.n_layer; ++l) list_block_stages(c, a.blocks[l], l, a.B, a.Tn, out, prefix);
    list_head_stages(c, a, a.logits.data(), a.probs.data(), out, prefix);
    return out;
}

template <class T>
void forward_block_qkv(const model_params<T>& params, std::size_t l, train_block_acts<T>& a, const T* x,
                       const llama::rotary_table& rot, std::size_t B, std::size_t Tn) {
    const architecture& c = params.config;
    const block_params<T>& p = params.blocks[l];
    parts::norm_forward(c, ln1_of(a), x, p.ln1_w, p.ln1_b, B * Tn);
    parts::qkv_forward(c, p, a, rot, B, Tn);  // as forward_block's attention begins
}

#define ATTN_TRAIN_STEP(T)                                                                                       \
    template train_acts<T> make_train_acts<T>(const architecture&, std::size_t, std::size_t, std::size_t, bool,      \
                                              bool);                                                              \
    template train_block_acts<T> make_block_acts<T>(const architecture&, std::size_t, std::size_t, bool);         \
    template void forward_block<T>(const model_params<T>&, std::size_t, train_block_acts<T>&, const T*,           \
                                   const llama::rotary_table&, std::size_t, std::size_t, const stage_patch<T>*);  \
    template void forward_embed<T>(const model_params<T>&, train_acts<T>&, const std::int32_t*);                  \
    template double forward_head<T>(const model_params<T>&, train_acts<T>&, const T*, T*, T*, const std::int32_t*); \
    template void list_block_stages<T>(const architecture&, const train_block_acts<T>&, std::size_t, std::size_t,  \
                                       std::size_t, std::vector<train_stage<T>>&, const std::string&);            \
    template void list_head_stages<T>(const architecture&, const train_acts<T>&, const T*, const T*,               \
                                      std::vector<train_stage<T>>&, const std::string&);                          \
    template void zero_acts<T>(train_acts<T>&);                                                                  \
    template void zero_params_in_place<T>(model_params<T>&);                                                       \
    template double train_forward<T>(const model_params<T>&, train_acts<T>&, const std::int32_t*,                  \
                                     const std::int32_t*, const stage_patch<T>*);                                \
    template void train_backward<T>(const model_params<T>&, model_params<T>&, const train_acts<T>&, train_acts<T>&, \
                                    const std::int32_t*, const std::int32_t*);                                   \
    template std::vector<train_stage<T>> list_stages<T>(const architecture&, const train_acts<T>&, const std::string&);

ATTN_TRAIN_STEP(float)
ATTN_TRAIN_STEP(double)
template void forward_block_qkv<float>(const model_params<float>&, std::size_t, train_block_acts<float>&, const float*,
                                       const llama::rotary_table&, std::size_t, std::size_t);
template void forward_block_qkv<double>(const model_params<double>&, std::size_t, train_block_acts<double>&,
                                        const double*, const llama::rotary_table&, std::size_t, std::size_t);

}  // namespace attn::model
