// model/gguf_family.hpp — the architectures attn reads from GGUF: `llama` (Llama,
// Mistral, SmolLM, TinyLlama), `qwen2` and `gpt2`, their choices read from the metadata
// keys llama.cpp writes ({arch}.block_count, .embedding_length, .feed_forward_length,
// .attention.head_count, .attention.head_count_kv, .rope.freq_base,
// .rope.dimension_count, .attention.layer_norm_rms_epsilon or .layer_norm_epsilon,
// .context_length; the vocabulary's size from tokenizer.ggml.tokens, else from
// token_embd.weight) into one plain struct, and their tensors checked by name and
// shape (llama.cpp's names: token_embd, blk.N.attn_q …, output_norm, output). Any other
// architecture, and any tensor of a type attn does not dequantize, is refused by name.
//
// Rotary pairing: GGUF `llama` q/k rows are in adjacent pairs (2i, 2i + 1) — llama.cpp's
// converter undoes Hugging Face's permutation — while `qwen2` keeps Hugging Face's
// half-split pairs (i, i + d/2); gpt2 has learned positions and no rotary. So attn
// reads `llama` q and k as stored and turns them in adjacent pairs (the same numbers
// as undoing the permutation and turning half-split pairs).
// gguf_model_architecture turns this struct into the model floor's one description
// (model/architecture.hpp), the one the forward, the decoder and `attn model info` read.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/architecture.hpp"

namespace attn::model {

class gguf_header;

struct gguf_architecture {
    std::string name;              // "llama", "qwen2", "gpt2"
    std::string model_name;        // general.name, "" when absent
    std::uint64_t n_layer = 0;     // block_count
    std::uint64_t d_model = 0;     // embedding_length
    std::uint64_t d_mlp = 0;       // feed_forward_length
    std::uint64_t n_head = 0;      // attention.head_count
    std::uint64_t n_head_kv = 0;   // attention.head_count_kv (default: n_head)
    std::uint64_t d_head = 0;      // d_model / n_head
    std::uint64_t context = 0;     // context_length
    std::uint64_t vocab_size = 0;
    std::uint64_t rope_dims = 0;   // rope.dimension_count (default d_head; 0 for gpt2)
    double rope_theta = 0;         // rope.freq_base (default 10000; 0 for gpt2)
    double rope_linear_factor = 0; // rope.scaling.factor of rope.scaling.type "linear" (or rope.scale_linear); 0: unscaled
    bool rope_freq_factors = false;  // rope_freqs.weight [rope_dims/2]: pair i's frequency divided by it (Llama 3 as llama.cpp writes it)
    double eps = 0;                // RMSNorm's or LayerNorm's epsilon
    bool rms_norm = true;          // llama, qwen2: RMSNorm; gpt2: LayerNorm with biases
    bool qkv_bias = false;         // qwen2: q, k, v have biases; gpt2: every linear
    bool gated_mlp = true;         // llama, qwen2: SwiGLU (gate, up, down); gpt2: GELU (up, down)
    bool tied = false;             // no output.weight: the unembedding is token_embd
    bool rotary = true;            // gpt2: learned positions
    rotary_pairing pairing = rotary_pairing::adjacent;  // rotary: which columns turn together
    std::map<std::string, std::uint64_t> type_counts;  // "Q4_K" → tensors of that type
    std::uint64_t parameters = 0;  // elements of every tensor
};

// The architectures attn reads: "llama, qwen2, gpt2".
const char* gguf_supported_architectures();

// Reads and checks the architecture of a parsed file: its keys, every tensor its
// blocks need (names and shapes), no tensor of a type attn cannot dequantize.
gguf_architecture read_gguf_architecture(const gguf_header& h);

// The model floor's description of the same model (family row, sizes, norm, rotary
// pairing, biases, MLP, tying; n_positions = the context length). Refuses (file_error
// at the key) what the description cannot hold: attention.key_length other than
// embedding_length / head_count.
architecture gguf_model_architecture(const gguf_header& h, const gguf_architecture& g);

// llama.cpp's name of layer L's tensor ("blk.3.attn_q.weight").
std::string gguf_block_tensor(std::uint64_t layer, const std::string& part);

}  // namespace attn::model
