// model/train_parts.cpp — the components of a block of model/train_step, each forward
// beside its backward (see train_parts.hpp).
#include "model/train_parts.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "model/train_layers.hpp"

namespace attn::model::parts {

using training::grad_mode;

namespace {

// A parameter the architecture may not have: its data, or null when it is empty.
template <class Tensor>
auto maybe(Tensor& t) -> decltype(t.data()) {
    return t.size() == 0 ? nullptr : t.data();
}

// The fused projection qkv [N, W] (q | k | v, W = (H + 2·KV)·dh) split into q [N, H·dh],
// k and v [N, KV·dh], or (put) gathered back from them: one pass over blocks of rows on
// the training's threads (copies: any split gives the same bytes).
constexpr std::size_t split_rows = 64;  // rows per task
template <class T>
void split_qkv(T* q, T* k, T* v, const T* qkv, std::size_t N, std::size_t Hd, std::size_t KVd) {
    const std::size_t W = Hd + 2 * KVd;
    training::for_tasks((N + split_rows - 1) / split_rows, [&](std::size_t t) {
        for (std::size_t r = t * split_rows; r < std::min(N, (t + 1) * split_rows); ++r) {
            const T* row = qkv + r * W;  // [W]
            std::copy(row, row + Hd, q + r * Hd);
            std::copy(row + Hd, row + Hd + KVd, k + r * KVd);
            std::copy(row + Hd + KVd, row + W, v + r * KVd);
        }
    });
}
template <class T>
void put_qkv(T* qkv, const T* q, const T* k, const T* v, std::size_t N, std::size_t Hd, std::size_t KVd) {
    const std::size_t W = Hd + 2 * KVd;
    training::for_tasks((N + split_rows - 1) / split_rows, [&](std::size_t t) {
        for (std::size_t r = t * split_rows; r < std::min(N, (t + 1) * split_rows); ++r) {
            T* row = qkv + r * W;  // [W]
            std::copy(q + r * Hd, q + (r + 1) * Hd, row);
            std::copy(k + r * KVd, k + (r + 1) * KVd, row + Hd);
            std::copy(v + r * KVd, v + (r + 1) * KVd, row + Hd + KVd);
        }
    });
}

}  // namespace

void check_trainable(const architecture& c) {
    const auto refuse = [&](const std::string& why) {
        throw attn::error("this model's forward is not computed by attn: " + why + " (" + describe(c) + ")");
    };
    if (c.mlp == mlp_kind::relu) refuse("a ReLU MLP");
    if (c.norm == norm_kind::layer_norm && !c.norm_bias) refuse("LayerNorm without bias");
    if (!c.final_norm) refuse("no final norm");
    if (c.n_head == 0 || c.kv_heads() == 0 || c.n_head % c.kv_heads() != 0)
        refuse(std::to_string(c.n_head) + " query heads in groups of " + std::to_string(c.kv_heads()) +
               " key/value heads");
    if (c.n_head * c.d_head() != c.n_embd) refuse("d_model not a multiple of the heads");
}

bool split_attention(const architecture& c) {
    return c.positions == position_kind::rotary || c.kv_heads() != c.n_head;
}

// ---- norms -----------------------------------------------------------------------

template <class T>
void norm_forward(const architecture& c, norm_buffers<T> a, const T* x, const param1<T>& w, const param1<T>& b,
                  std::size_t N) {
    const std::size_t C = c.n_embd;
    if (c.norm == norm_kind::layer_norm) {
        // hook_normalized (empty in a gradient's buffers): (x − mean) · rstd, before the weight and bias
        return training::layer_norm_forward(a.out.data(), a.mean.data(), a.rstd.data(), x, w.data(), b.data(), N, C,
                                            c.ln_eps, a.normalized.empty() ? nullptr : a.normalized.data());
    }
    llama::rms_norm_forward(a.out.data(), a.normalized.data(), a.rstd.data(), x, w.data(), N, C, c.ln_eps);
    for (std::size_t r = 0; r < N; ++r) a.scale[r] = T(1) / a.rstd[r];  // √(mean(x²) + eps)
}

template <class T>
void norm_backward(const architecture& c, T* dx, param1<T>& dw, param1<T>& db, const std::vector<T>& dout,
                   const T* x, const param1<T>& w, norm_buffers<T> a, std::size_t N, grad_mode mode) {
    const std::size_t C = c.n_embd;
    if (c.norm == norm_kind::layer_norm)
        return training::layer_norm_backward(dx, dw.data(), db.data(), dout.data(), x, w.data(), a.mean.data(),
                                             a.rstd.data(), N, C, mode);
    llama::rms_norm_backward(dx, dw.data(), dout.data(), x, w.data(), a.rstd.data(), N, C, mode);
}

// ---- attention -------------------------------------------------------------------

// The block's q|k|v product from ln1, split into q, k, v and rotated where the architecture
// says so: what the heads read (model::forward_block_qkv stops here for a head's numbers).
template <class T>
void qkv_forward(const architecture& c, const block_params<T>& p, train_block_acts<T>& a,
                 const llama::rotary_table& rot, std::size_t B, std::size_t Tn) {
    const std::size_t N = B * Tn, C = c.n_embd, W = c.qkv_width(), H = c.n_head, KV = c.kv_heads(), dh = c.d_head();
    training::linear_forward(a.qkv.data(), a.ln1.data(), p.w_qkv.data(), maybe(p.b_qkv), N, C, W);
    if (!split_attention(c)) return;  // GPT-2: heads read the fused buffer
    split_qkv(a.q.data(), a.k.data(), a.v.data(), a.qkv.data(), N, H * dh, KV * dh);
    if (c.positions != position_kind::rotary) return;
    llama::rotary_forward(a.rot_q.data(), a.q.data(), rot, B, Tn, H);
    llama::rotary_forward(a.rot_k.data(), a.k.data(), rot, B, Tn, KV);
}

template <class T>
void attention_forward(const architecture& c, const block_params<T>& p, train_block_acts<T>& a,
                       const llama::rotary_table& rot, std::size_t B, std::size_t Tn) {
    const std::size_t C = c.n_embd, H = c.n_head, KV = c.kv_heads(), dh = c.d_head();
    qkv_forward(c, p, a, rot, B, Tn);
    a.unkept = {};
    T* scores = a.scores.empty() ? nullptr : a.scores.data();  // null: not kept, nor the pattern
    T* pattern = a.pattern.empty() ? nullptr : a.pattern.data();
    if (!split_attention(c))  // GPT-2: heads read the fused buffer
        return training::attention_forward(a.z.data(), scores, pattern, a.qkv.data(), B, Tn, C, H, &a.unkept);
    const bool rotary = c.positions == position_kind::rotary;
    const T* q = rotary ? a.rot_q.data() : a.q.data();
    const T* k = rotary ? a.rot_k.data() : a.k.data();
    llama::gqa_attention_forward(a.z.data(), scores, pattern, q, k, a.v.data(), B, Tn, H, KV, dh, &a.unkept);
}

template <class T>
void attention_backward(const architecture& c, const block_params<T>& p, block_params<T>& g,
                        const train_block_acts<T>& a, train_block_acts<T>& ga, const llama::rotary_table& rot,
                        std::size_t B, std::size_t Tn) {
    const std::size_t N = B * Tn, C = c.n_embd, W = c.qkv_width(), H = c.n_head, KV = c.kv_heads(), dh = c.d_head();
    if (!split_attention(c)) {
        training::attention_backward(ga.qkv.data(), ga.scores.data(), ga.pattern.data(), ga.z.data(), a.qkv.data(),
                                     a.pattern.data(), B, Tn, C, H);
    } else {
        const bool rotary = c.positions == position_kind::rotary;
        const T* q = rotary ? a.rot_q.data() : a.q.data();
        const T* k = rotary ? a.rot_k.data() : a.k.data();
        T* dq = rotary ? ga.rot_q.data() : ga.q.data();
        T* dk = rotary ? ga.rot_k.data() : ga.k.data();
        llama::gqa_attention_backward(dq, dk, ga.v.data(), ga.scores.data(), ga.pattern.data(), ga.z.data(), q, k,
                                      a.v.data(), a.pattern.data(), B, Tn, H, KV, dh);
        if (rotary) {
            llama::rotary_backward(ga.q.data(), ga.rot_q.data(), rot, B, Tn, H, 0, grad_mode::write);
            llama::rotary_backward(ga.k.data(), ga.rot_k.data(), rot, B, Tn, KV, 0, grad_mode::write);
        }
        put_qkv(ga.qkv.data(), ga.q.data(), ga.k.data(), ga.v.data(), N, H * dh, KV * dh);
    }
    training::linear_backward(ga.ln1.data(), g.w_qkv.data(), maybe(g.b_qkv), ga.qkv.data(), a.ln1.data(),
                              p.w_qkv.data(), N, C, W, grad_mode::write);
}

// ---- MLP -------------------------------------------------------------------------

template <class T>
void mlp_forward(const architecture& c, const block_params<T>& p, train_block_acts<T>& a, std::size_t N,
                 const T* x, T* resid) {
    const std::size_t C = c.n_embd, M = c.d_mlp();
    if (c.mlp == mlp_kind::gelu_tanh) {
        training::linear_forward(a.mlp_pre.data(), a.ln2.data(), p.w_fc.data(), maybe(p.b_fc), N, C, M);
        training::gelu_forward(a.mlp_post.data(), a.mlp_tanh.data(), a.mlp_pre.data(), N * M);
    } else {  // SwiGLU: hook_pre is the gate, hook_pre_linear the up projection
        training::linear_forward(a.mlp_pre.data(), a.ln2.data(), p.w_gate.data(), static_cast<const T*>(nullptr), N,
                                 C, M);
        training::linear_forward(a.mlp_pre_linear.data(), a.ln2.data(), p.w_fc.data(), maybe(p.b_fc), N, C, M);
        llama::silu_gate_forward(a.mlp_post.data(), a.mlp_pre.data(), a.mlp_pre_linear.data(), N * M);
    }
    training::linear_residual_forward(a.mlp_out.data(), resid, x, a.mlp_post.data(), p.w_proj.data(), maybe(p.b_proj),
                                      N, M, C);
}

template <class T>
void mlp_backward(const architecture& c, const block_params<T>& p, block_params<T>& g, const train_block_acts<T>& a,
                  train_block_acts<T>& ga, std::size_t N) {
    const std::size_t C = c.n_embd, M = c.d_mlp();
    training::linear_backward(ga.mlp_post.data(), g.w_proj.data(), maybe(g.b_proj), ga.mlp_out.data(),
                              a.mlp_post.data(), p.w_proj.data(), N, M, C, grad_mode::write);
    if (c.mlp == mlp_kind::gelu_tanh) {
        training::gelu_backward(ga.mlp_pre.data(), a.mlp_pre.data(), a.mlp_tanh.data(), ga.mlp_post.data(), N * M,
                                grad_mode::write);
        return training::linear_backward(ga.ln2.data(), g.w_fc.data(), maybe(g.b_fc), ga.mlp_pre.data(), a.ln2.data(),
                                         p.w_fc.data(), N, C, M, grad_mode::write);
    }
    llama::silu_gate_backward(ga.mlp_pre.data(), ga.mlp_pre_linear.data(), ga.mlp_post.data(), a.mlp_pre.data(),
                              a.mlp_pre_linear.data(), N * M, grad_mode::write);
    training::linear_backward(ga.ln2.data(), g.w_gate.data(), static_cast<T*>(nullptr), ga.mlp_pre.data(),
                              a.ln2.data(), p.w_gate.data(), N, C, M, grad_mode::write);
    training::linear_backward(ga.ln2.data(), g.w_fc.data(), maybe(g.b_fc), ga.mlp_pre_linear.data(), a.ln2.data(),
                              p.w_fc.data(), N, C, M);
}

#define ATTN_TRAIN_PARTS(T)                                                                                       \
    template void norm_forward<T>(const architecture&, norm_buffers<T>, const T*, const param1<T>&,               \
                                  const param1<T>&, std::size_t);                                                 \
    template void norm_backward<T>(const architecture&, T*, param1<T>&, param1<T>&, const std::vector<T>&,        \
                                   const T*, const param1<T>&, norm_buffers<T>, std::size_t, grad_mode);          \
    template void qkv_forward<T>(const architecture&, const block_params<T>&, train_block_acts<T>&,               \
                                 const llama::rotary_table&, std::size_t, std::size_t);                           \
    template void attention_forward<T>(const architecture&, const block_params<T>&, train_block_acts<T>&,         \
                                       const llama::rotary_table&, std::size_t, std::size_t);                     \
    template void attention_backward<T>(const architecture&, const block_params<T>&, block_params<T>&,            \
                                        const train_block_acts<T>&, train_block_acts<T>&,                         \
                                        const llama::rotary_table&, std::size_t, std::size_t);                    \
    template void mlp_forward<T>(const architecture&, const block_params<T>&, train_block_acts<T>&, std::size_t,  \
                                 const T*, T*);                                                                  \
    template void mlp_backward<T>(const architecture&, const block_params<T>&, block_params<T>&,                  \
                                  const train_block_acts<T>&, train_block_acts<T>&, std::size_t);

ATTN_TRAIN_PARTS(float)
ATTN_TRAIN_PARTS(double)

}  // namespace attn::model::parts
