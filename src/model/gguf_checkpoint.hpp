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

namespace quant {
struct weights;
}
// For decoding (`attn model generate`, model/decode): read_gguf_params<float>, except that
// a linear weight, the unembedding or the token embedding whose every source tensor is
// of a type model/quant_matvec multiplies in blocks (Q8_0, Q4_K) is not dequantized: its
// tensor is left empty ([0, 0]) and its blocks go into `q` (q.owner keeps the file
// mapped), each block's f16 scales checked finite. The rest as read_gguf_params.
model_params<float> read_gguf_for_decoding(const std::string& path, quant::weights& q, checkpoint_info* info = nullptr);

}  // namespace attn::model
