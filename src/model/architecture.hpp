// model/architecture.hpp — a decoder-only Transformer's architecture as data: the one
// description every part of the model floor reads (the parameters' shapes in
// model/params, the forward and backward, the checkpoint readers and writers, the
// hooks a model has). The choices are TransformerLens's (normalization_type,
// positional_embedding_type, gated_mlp, n_key_value_heads):
//
//   family         norm                 positions            attention        MLP       unembedding
//   GPT-2/minGPT   LayerNorm, bias      learned (wpe)        H heads, biases  GELU-tanh tied to wte
//   nanoGPT        LayerNorm, no bias*  learned              H heads          GELU-tanh tied
//   Llama/Mistral  RMSNorm              rotary, half-split   KV ≤ H heads     SwiGLU    untied
//   Qwen2          RMSNorm              rotary, half-split   KV heads, q/k/v biases SwiGLU untied
//
// (*nanoGPT's bias=False reads as zero biases, which computes the same.) A new family is
// one row in architecture_rows() (architecture.cpp) plus one name-mapping file for its
// checkpoints (model/names_*.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn::model {

enum class norm_kind { layer_norm, rms_norm };
enum class position_kind { learned, rotary };
// Which coordinates a rotation pairs: (2i, 2i+1) — the RoPE paper, GPT-NeoX off, lesson
// 17 — or (i, i + r/2) — Hugging Face Llama's rotate_half.
enum class rotary_pairing { adjacent, half_split };
enum class mlp_kind { none, gelu_tanh, relu, swiglu };

struct architecture {
    std::string family = "gpt2";  // the row it came from (architecture_rows)
    std::size_t n_layer = 0;
    std::size_t n_head = 0;        // query heads
    std::size_t n_kv_head = 0;     // key/value heads (grouped-query attention); 0: n_head
    std::size_t n_embd = 0;        // d_model
    std::size_t vocab_size = 0;    // d_vocab
    std::size_t n_positions = 0;   // the longest sequence (n_ctx)
    // Norms (ln_1, ln_2, ln_f):
    norm_kind norm = norm_kind::layer_norm;
    bool norm_bias = true;         // LayerNorm's bias (RMSNorm has none)
    double ln_eps = 1e-5;          // epsilon (GPT-2: 1e-5; Llama: 1e-5 or 1e-6)
    bool final_norm = true;        // ln_f before the unembedding
    // Positions:
    position_kind positions = position_kind::learned;
    double rope_theta = 10000.0;   // rotary: the base of the frequencies
    std::size_t rotary_dims = 0;   // rotary: coordinates of each head rotated; 0: all of d_head
    rotary_pairing pairing = rotary_pairing::half_split;
    // [rotated_dims()/2] each pair's angle per position when the checkpoint rescales them
    // (config.json's rope_scaling "llama3" or "linear", GGUF's rope.scaling.type linear:
    // model/rope_scaling.hpp); empty: rope_theta^(−2i/dims). rope_scaling: that, in words.
    std::vector<double> rope_frequencies;
    std::string rope_scaling;
    // Attention:
    bool qkv_bias = true;          // biases on q, k and v (GPT-2, Qwen2)
    bool out_bias = true;          // bias on the output projection (GPT-2)
    // MLP:
    mlp_kind mlp = mlp_kind::gelu_tanh;
    std::size_t mlp_width = 0;     // d_mlp; 0: 4·d_model (GPT-2)
    bool mlp_bias = true;          // biases on the MLP's projections (GPT-2)
    // Unembedding:
    bool tied = true;              // W_U is wte (no lm_head)

    bool has_mlp() const { return mlp != mlp_kind::none; }
    std::size_t d_head() const { return n_head == 0 ? 0 : n_embd / n_head; }
    std::size_t kv_heads() const { return n_kv_head == 0 ? n_head : n_kv_head; }
    std::size_t d_mlp() const { return mlp_width == 0 ? 4 * n_embd : mlp_width; }
    // The fused projection's width: q | k | v = H·d_head + 2·KV·d_head columns.
    std::size_t qkv_width() const { return (n_head + 2 * kv_heads()) * d_head(); }
    std::size_t rotated_dims() const { return rotary_dims == 0 ? d_head() : rotary_dims; }
    // GPT-2's shape of block: what the GPT forward of the model floor computes today.
    bool is_gpt2_family() const;
};

// One family's defaults: a row of the table above.
struct architecture_row {
    const char* name;        // "gpt2", "llama", "qwen2" (--arch)
    const char* what;        // one line for people
    architecture defaults;   // sizes 0: the checkpoint or the task sets them
};

// Every family attn knows, GPT-2 first.
const std::vector<architecture_row>& architecture_rows();

// The row named `name`, or nullptr.
const architecture_row* find_architecture(const std::string& name);

// Words for people: "GPT-2 (LayerNorm, learned positions, GELU)", for `attn model info`.
std::string describe(const architecture& a);

}  // namespace attn::model
