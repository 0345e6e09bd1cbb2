// model/train_parts.hpp — the components of one block of model/train_step, chosen by the
// architecture (internal to train_step*.cpp): each component's forward and its backward
// side by side, on one block's buffers (train_block_acts), calling model/train_layers
// (GPT-2's kernels) or model/llama_layers (the Llama family's). A component that does not
// apply to an architecture is never called for it; GPT-2 runs exactly the calls it ran
// before the Llama family joined (the same bits).
//
//   norm       LayerNorm with bias (ln1.out)  | RMSNorm (ln1.hook_scale, hook_normalized, ln1.out)
//   attention  fused q|k|v, multi-head (GPT-2: learned positions, KV = H)
//              | q, k, v split, rotary (either pairing, partial dims), grouped-query (KV ≤ H)
//   MLP        GELU-tanh | SwiGLU (hook_pre = gate, hook_pre_linear = up) | none
#pragma once

#include <cstddef>
#include <vector>

#include "model/train_step.hpp"

namespace attn::model::parts {

// Refuses (attn::error) an architecture no component here computes (ReLU MLP, LayerNorm
// without bias, no final norm, H not a multiple of KV).
void check_trainable(const architecture& c);

// Whether the block splits q, k, v into their own buffers (rotary or grouped-query).
bool split_attention(const architecture& c);

// One norm (ln1, ln2 or ln_final): out [N, C], mean/rstd [N]; RMSNorm also normalized
// [N, C] and scale [N] (either may be empty: not kept, in a gradient's buffers).
template <class T>
struct norm_buffers {
    std::vector<T>& out;
    std::vector<T>& mean;
    std::vector<T>& rstd;
    std::vector<T>& normalized;
    std::vector<T>& scale;
};
template <class T>
void norm_forward(const architecture& c, norm_buffers<T> a, const T* x, const param1<T>& w, const param1<T>& b,
                  std::size_t N);
// dx: added to, or written (mode: model/train_layers' grad_mode).
template <class T>
void norm_backward(const architecture& c, T* dx, param1<T>& dw, param1<T>& db, const std::vector<T>& dout,
                   const T* x, const param1<T>& w, norm_buffers<T> a, std::size_t N, training::grad_mode mode);

// Attention from ln1.out to z [N, H·dh]: the q|k|v projection, rotation, scores, pattern.
// The backward writes (never adds to) every gradient buffer of the block it fills.
// The q|k|v product of ln1, split and rotated as the heads read it (the first half of attention_forward).
template <class T>
void qkv_forward(const architecture& c, const block_params<T>& p, train_block_acts<T>& a,
                 const llama::rotary_table& rot, std::size_t B, std::size_t Tn);
template <class T>
void attention_forward(const architecture& c, const block_params<T>& p, train_block_acts<T>& a,
                       const llama::rotary_table& rot, std::size_t B, std::size_t Tn);
template <class T>
void attention_backward(const architecture& c, const block_params<T>& p, block_params<T>& g,
                        const train_block_acts<T>& a, train_block_acts<T>& ga, const llama::rotary_table& rot,
                        std::size_t B, std::size_t Tn);

// The MLP from ln2.out to mlp_out [N, C], and resid = x + mlp_out [N, C] in its last pass.
template <class T>
void mlp_forward(const architecture& c, const block_params<T>& p, train_block_acts<T>& a, std::size_t N, const T* x,
                 T* resid);
template <class T>
void mlp_backward(const architecture& c, const block_params<T>& p, block_params<T>& g, const train_block_acts<T>& a,
                  train_block_acts<T>& ga, std::size_t N);

}  // namespace attn::model::parts
