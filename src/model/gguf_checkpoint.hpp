// model/gguf_checkpoint.hpp — a GGUF file (llama.cpp, Ollama) read into model_params:
// the architecture from its metadata (model/gguf_family: read_gguf_architecture, then
// gguf_model_architecture, the one description), every tensor dequantized block by
// block to T (model/gguf_quant: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K) and placed by
// the name mapping of model/names_gguf.cpp (linear weights transposed to [in, out];
// attn_q | attn_k | attn_v side by side as W_qkv). GGUF `llama` keeps q and k rows in
// adjacent-pair order, so its architecture turns adjacent pairs (no permutation undone).
// Every problem is a model::file_error (`file: byte N: …`; the CLI exits 2).
#pragma once

#include <memory>
#include <string>

#include "model/checkpoint.hpp"
#include "model/params.hpp"

namespace attn::model {

// info (may be null): layout "GGUF llama" …, dtype the tensor types ("F32", "Q4_K, Q6_K"),
// config_source "GGUF metadata", metadata general.name when present.
template <class T>
model_params<T> read_gguf_checkpoint(const std::string& path, checkpoint_info* info = nullptr);

// The architecture alone (header, metadata and tensor table checked, nothing
// dequantized): milliseconds, for `attn model info` and the CLI's memory budget.
architecture read_gguf_config(const std::string& path, checkpoint_info* info = nullptr);

class gguf_header;
// The same from a parsed header (its bytes alive): the fuzz target and tests. With the
// bytes' `owner` (the mapped file), a parameter the file holds as one F32 tensor in the
// forward's layout (embeddings, norms, output) is a view of them (model/param_storage.hpp).
template <class T>
model_params<T> read_gguf_params(const gguf_header& h, checkpoint_info* info = nullptr,
                                 const std::shared_ptr<const void>& owner = nullptr);

}  // namespace attn::model
