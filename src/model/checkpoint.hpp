// model/checkpoint.hpp — checkpoints in safetensors files, read into model_params and
// written from them: the GPT-2 family (below) and the Llama family (Hugging Face Llama /
// Qwen2 names, told apart by them: model/checkpoint_llama.hpp, model/names_llama.cpp).
//
// Reading takes both layouts people have, told apart by the tensor shapes:
//   * Hugging Face GPT-2: "h.N.attn.c_attn.weight" … with or without a "transformer."
//     prefix, Conv1D weights stored [in, out] (c_attn.weight is [d, 3d]); no
//     lm_head.weight means the unembedding is tied to wte;
//   * minGPT / nanoGPT: "transformer.h.N.*", nn.Linear weights stored [out, in]
//     (c_attn.weight is [3d, d]), transposed on reading; lm_head.weight (alone, without
//     wte.weight, it is both: tied weights that safetensors' save_model kept once).
// The causal-mask buffers (attn.bias, attn.masked_bias) are ignored. A checkpoint
// without any bias (nanoGPT's bias=False) reads with zero biases, which computes the
// same; one with some biases but not all is refused. No mlp.* / ln_2 tensors at all
// means attention-only blocks (config.mlp = mlp_kind::none). F64, F32, F16 and BF16 are
// read (converted to T; NaN or infinite weights are refused); the file is mapped, not
// read, so only the copy into the parameters costs time.
//
// The config: each value from the file's __metadata__ (strings), else from a
// config.json beside the file (Hugging Face's names: n_layer, n_head, n_embd,
// vocab_size, n_positions or n_ctx, layer_norm_epsilon), else from the shapes (all
// but n_head, which no shape tells; the epsilon defaults to GPT-2's 1e-5). A value
// stated and contradicted by a shape is an error.
//
// Every problem is a model::file_error (file and byte offset; the CLI exits 2).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "model/params.hpp"

namespace attn::model {

inline const char* const layout_hugging_face = "GPT-2 (Hugging Face)";
inline const char* const layout_mingpt = "minGPT / nanoGPT";

struct checkpoint_info {
    std::string layout;         // layout_hugging_face or layout_mingpt
    std::string dtype;          // "F32" …; several: "F16, F32"
    std::string config_source;  // where n_head came from: "__metadata__" or "config.json"
    std::map<std::string, std::string> metadata;  // the file's __metadata__ as written
    std::vector<std::string> notes;  // what was assumed: absent biases, the default epsilon, …
};

template <class T>
model_params<T> read_checkpoint(const std::string& path, checkpoint_info* info = nullptr);

// The header, layout, config and every tensor's name, shape and dtype checked, without
// converting any value: what `attn model info` needs (milliseconds for GPT-2 small,
// where read_checkpoint spends seconds touching 500 MB of new memory).
architecture read_checkpoint_config(const std::string& path, checkpoint_info* info = nullptr);

// A Hugging Face checkpoint in shards: `index` is its model.safetensors.index.json, the
// shards the files beside it (model/checkpoint_shards.hpp); the config from the
// config.json beside the index. The same checks and layouts as one file.
template <class T>
model_params<T> read_sharded_checkpoint(const std::string& index, checkpoint_info* info = nullptr);
architecture read_sharded_checkpoint_config(const std::string& index, checkpoint_info* info = nullptr);

// The same from bytes in memory (the fuzz target; tests): `name` is used in errors,
// config_json the path of a config.json to consult ("" = none).
template <class T>
model_params<T> read_checkpoint_bytes(const unsigned char* bytes, std::size_t size, const std::string& name,
                                    const std::string& config_json, checkpoint_info* info = nullptr);

// Writes F32 (float) or F64 (double); a Llama-family model in Hugging Face's names and
// config keys (checkpoint_llama.hpp), a GPT-2 family one in the minGPT/nanoGPT naming and layout
// (nn.Linear weights [out, in]; lm_head.weight only when untied), the config in
// __metadata__ as strings (n_layer, n_head, n_embd, vocab_size, n_positions,
// layer_norm_epsilon, format = "pt") with extra_metadata beside it (the config's keys
// win). Through io::staged_file: temporary file + rename, never over an input.
template <class T>
void write_checkpoint(const std::string& path, const model_params<T>& params,
                      const std::map<std::string, std::string>& extra_metadata = {});

}  // namespace attn::model
