// model/decode.hpp — generation through a KV cache (lesson 13's, on a real model): the
// model's state after the tokens fed so far is each layer's cached keys and values, and
// each new token is one decoding step — one query row per head against the cache —
// never a forward over the whole sequence again.
//
// One step for the token at position t (x [C] the residual stream, C = d_model):
//   x = W_E[token] (+ W_pos[t] with learned positions)             training::embed_forward
//   per block:  a = norm1(x)                                       LayerNorm or RMSNorm
//               q | k | v = a W_qkv + b_qkv                        training::linear_forward
//               z = gqa_decode_step(q, k, v; cache, t)             rotates q, k at t (rotary; the
//                                                                  identity table for learned
//                                                                  positions), appends k, v, attends
//               x += z W_O + b_O;  m = norm2(x)
//               x += SwiGLU(m) or GELU(m W_in + b_in) W_out + b_out
//   logits = norm_f(x) W_Uᵀ                                        training::unembed_forward
// Every piece is an existing layer function (model/train_layers, model/llama_layers):
// no arithmetic of its own, so the logits of step t equal row t of the forward over
// positions 0 … t (tests/python/test_model_generate.py checks them against PyTorch).
// The one difference from training's linear_forward: a step is one row, a matrix-vector
// product per weight, bound by reading the weights. The decoder packs every weight once
// (core/matmul's pack_rows: each group of columns one sequential stream, all of them in
// one block of huge pages, core/huge_block) and each step runs matmul_row_packed, one
// row computed once — the same bits as linear_forward, at the price of a packed copy of
// the weights (the model's size again in memory).
// A GGUF's Q8_0 / Q4_K weights (model/gguf_checkpoint's read_gguf_for_decoding) are not
// packed: each step multiplies their blocks in place (model/quant_matvec: dequantized in
// registers, float products, its stated order of additions; the token embedding's one row
// dequantized), so the decoder holds and reads the file's blocks, no float copy.
// Families: every architecture row (GPT-2, Llama, Qwen2); batch 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/huge_block.hpp"
#include "core/matmul.hpp"
#include "model/llama_layers.hpp"
#include "model/params.hpp"
#include "model/quant_matvec.hpp"

namespace attn::model {

template <class T>
struct packed_block {
    row_packed_matrix<T> qkv, out, gate, fc, proj;  // W_qkv, W_O, W_gate (SwiGLU), W_in, W_out (empty without MLP)
    quant::weight qkv_q, out_q, gate_q, fc_q, proj_q;  // the same held in a GGUF's blocks instead (float only)
};

template <class T>
struct decoder {
    const model_params<T>* params = nullptr;
    huge_block weights;                       // every packed weight below, one block
    std::vector<packed_block<T>> packed;      // [n_layer]
    row_packed_matrix<T> unembed;             // W_Uᵀ [d_model, vocab]
    quant::weight unembed_q, embed_q;         // W_U [vocab, d_model] and W_E in blocks (then not packed / empty)
    std::shared_ptr<const void> blocks_owner; // the mapped file the blocks are in
    std::size_t capacity = 0;                 // positions the caches hold
    std::vector<llama::kv_cache<T>> caches;   // [n_layer], each k, v [1, capacity, KV, dh]
    llama::rotary_table table;                // rotary: [capacity, dims/2]; learned: turns nothing
    // One token's buffers, reused every step:
    std::vector<T> x;          // [C]          the residual stream
    std::vector<T> a;          // [C]          a norm's output
    std::vector<T> qkv;        // [qkv_width]  q | k | v
    std::vector<T> rot_q;      // [H·dh]       q turned at t
    std::vector<T> z;          // [H·dh]       heads side by side
    std::vector<T> o;          // [C]          attention's or the MLP's output
    std::vector<T> gate, up, post, tanh_out;  // [d_mlp]
    std::vector<T> mean, rstd; // [1]          the norm's statistics of the row
    std::vector<T> zero_bias;  // [C]          LayerNorm without a bias adds these
    std::vector<T> logits;     // [vocab]      the next token's logits after the last step
    std::vector<float> embed_row;  // [C]      W_E[token] dequantized (embed_q)
    // A head traced (set before the first step; layer ≥ n_layer: none): its attention
    // weights over the cache at the last step, positions 0 … position() − 1.
    std::size_t trace_layer = static_cast<std::size_t>(-1), trace_head = 0;
    std::vector<T> trace_pattern;  // [H, capacity] the traced layer's pattern rows (row h: t + 1 weights)
    std::size_t position() const { return caches.empty() ? 0 : caches.front().length; }
};

// A decoder for up to `capacity` positions (1 … the model's n_positions); it reads `p`,
// which must outlive it, and packs a copy of every weight but those `blocks` holds (float
// only; p's tensor of such a weight may be empty). Throws attn::error for a capacity
// beyond the model's context or an MLP kind it cannot run.
template <class T>
decoder<T> make_decoder(const model_params<T>& p, std::size_t capacity, const quant::weights* blocks = nullptr);

// Feeds `token` at position d.position() and returns the logits [vocab] of the next
// token (d.logits). Throws attn::error for an id outside the vocabulary or a full cache.
template <class T>
const std::vector<T>& decode_step(decoder<T>& d, int token);

// How the next token is chosen from the logits: greedy (temperature 0, the first of
// equal maxima) or drawn from softmax(logits / temperature) over the top_k most likely
// (0: all; ties broken by the lower id) with core/prng's uniform draws from `seed`.
struct sampling {
    double temperature = 0;
    std::size_t top_k = 0;
    std::uint64_t seed = 0;
};

// What generate() did.
struct generation {
    std::vector<int> ids;             // the new tokens, in order
    bool stopped_at_eos = false;      // the last new token is the end-of-sequence token
    std::vector<std::vector<double>> logits;  // [fed tokens][vocab] when kept: after each step
    std::vector<std::vector<double>> trace;   // [fed tokens][t + 1] the traced head's weights over the cache
};

// Feeds the prompt one step at a time, then chooses up to max_new tokens, each fed back,
// stopping after `eos` when given. on_token(id) is called for each new token as it comes.
// keep_logits: every step's logits (prompt positions included) in the result.
template <class T>
generation generate(decoder<T>& d, const std::vector<int>& prompt, std::size_t max_new, const sampling& how,
                    std::optional<int> eos, bool keep_logits, const std::function<void(int)>& on_token = {});

}  // namespace attn::model
