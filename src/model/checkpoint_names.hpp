// model/checkpoint_names.hpp — each checkpoint family's tensor names mapped onto
// model/params (for_each_param's names, TransformerLens's vocabulary), one file per
// family as TransformerLens's weight conversions are:
//   model/names_gpt2.cpp   Hugging Face GPT-2 (Conv1D) and minGPT / nanoGPT (nn.Linear)
//   model/names_llama.cpp  Hugging Face Llama, Mistral, SmolLM, TinyLlama, Qwen2
//   model/names_gguf.cpp   GGUF (llama.cpp's names: token_embd, blk.N.attn_q …, output)
// A new family is one more file here, with its row in model/architecture.cpp.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "model/architecture.hpp"

namespace attn::model {

// GPT-2 family: a parameter's key in the file without the "transformer." prefix
// ("blocks.0.attn.W_qkv" → "h.0.attn.c_attn.weight", "unembed.W_U" → "lm_head.weight").
std::string gpt2_key(const std::string& name);
// The name attn writes (minGPT / nanoGPT): "transformer." + key, lm_head.weight bare.
std::string mingpt_name(const std::string& name);
// The parts of block N a GPT-2 family file may hold ("ln_1.weight" … "mlp.c_proj.bias").
const std::set<std::string>& gpt2_block_parts();
// Whether a block part belongs to the MLP half (ln_2, mlp.*): a file without any has
// attention-only blocks.
bool gpt2_mlp_part(const std::string& part);
// The names a GPT-2 family file may hold, for an error message.
std::string gpt2_names_expected();

// GGUF (llama.cpp's names, every architecture of model/gguf_family): the tensors a
// parameter is read from and how. Linear weights are stored [out, in] (nn.Linear's
// order; GGUF's dims innermost first are [in, out]), so `transposed` turns each part into
// [in, out]; several parts stand side by side along the output columns (attn_q | attn_k
// | attn_v → W_qkv, their biases → b_qkv). Embeddings, norms, biases and the
// unembedding (output.weight, [vocab, d_model] as model_params keeps W_Uᵀ) are copied.
struct gguf_source {
    std::vector<std::string> tensors;  // GGUF tensor names, in column order
    bool transposed = false;           // each part [out_i, in] → [in, out_i]
};
gguf_source gguf_param_source(const std::string& name, const architecture& a);

// ---- the Llama family (model/names_llama.cpp): Hugging Face Llama, Mistral, Qwen2 ----
// nn.Linear weights [out, in] (transposed against model_params' [in, out]); the fused
// attn.W_qkv / attn.b_qkv are three tensors (q_proj, k_proj, v_proj, in that order).

// A parameter's tensor names ("blocks.0.attn.W_qkv" → the layer's q_proj.weight,
// k_proj.weight, v_proj.weight; "blocks.0.ln1.w" → {"model.layers.0.input_layernorm.weight"}).
std::vector<std::string> llama_keys(const std::string& name);
// Whether the file stores this parameter transposed (every nn.Linear weight but lm_head,
// which model_params keeps [vocab, d_model] as the file does).
bool llama_transposed(const std::string& name);
// Whether a tensor name is one of the Llama family's (tells a Llama file from a GPT-2 one).
bool llama_name(const std::string& key);
// The names a Llama family file may hold, for an error message.
std::string llama_names_expected();

}  // namespace attn::model
