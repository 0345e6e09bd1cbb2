// model/checkpoint_llama.hpp — Llama-family checkpoints (Hugging Face Llama, Mistral,
// SmolLM, TinyLlama, Qwen2 safetensors), the part of model/checkpoint that reads and
// writes them (internal to checkpoint*.cpp; names from model/names_llama.cpp).
//
// The config: each value from the file's __metadata__ (strings), else from a config.json
// beside the file, in Hugging Face's names: hidden_size, num_hidden_layers,
// num_attention_heads, num_key_value_heads, intermediate_size, rms_norm_eps, rope_theta,
// max_position_embeddings, vocab_size, tie_word_embeddings, model_type ("llama",
// "mistral", "qwen2"), partial_rotary_factor, head_dim; and attn's own rope_pairing
// ("half_split", Hugging Face's rotate_half, the default; or "adjacent"). The shapes tell
// the rest (layers, width, vocabulary, key/value heads, MLP width, biases, tied); a value
// stated and contradicted by a shape is an error.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "model/checkpoint.hpp"
#include "model/safetensors.hpp"

namespace attn::model {

inline const char* const layout_llama = "Llama family (Hugging Face)";

// Whether the file's tensors carry the Llama family's names (model.layers.N.…).
bool is_llama_file(const st_header& h);

// The config, every parameter's tensor checked (name, shape, dtype); fills info.
architecture check_llama_file(const st_header& h, const std::string& config_json, checkpoint_info& info);

// Every parameter converted from the file (checked by check_llama_file); done(begin, end)
// after each tensor copied. With a mapping's `owner`, a tensor already in the forward's
// layout is a view of the mapping instead (model/param_storage.hpp).
template <class T>
model_params<T> fill_llama(const st_header& h, const architecture& c, const unsigned char* bytes,
                           const std::function<void(std::uint64_t, std::uint64_t)>& done,
                           const std::shared_ptr<const void>& owner = nullptr);

// Writes F32/F64 in Hugging Face's names and layout, the config in __metadata__ (the keys
// above, as strings) with extra_metadata beside it. Refuses an architecture those names
// cannot hold (LayerNorm, learned positions).
template <class T>
void write_llama_checkpoint(const std::string& path, const model_params<T>& params,
                            const std::map<std::string, std::string>& extra_metadata);

}  // namespace attn::model
