// model/hooks.hpp — the names of every intermediate the GPT forward keeps
// (model/traced_forward.hpp), TransformerLens's hook names, with their axes and one line
// for people. The one list of the model floor: the exporters (trace/model_export),
// `attn model run --json/--npy` and the trace's display read it; the per-head names
// (hook_q … hook_pattern, hook_z) are the ones trace/stages.hpp uses for a single
// attention computation, so a model's head and a spec's head speak one vocabulary.
//
// Names are TransformerLens's:
//   hook_embed, hook_pos_embed                                   [batch, pos, d_model]
//   blocks.L.hook_resid_pre, blocks.L.ln1.hook_normalized        [batch, pos, d_model]
//   blocks.L.attn.hook_q | hook_k | hook_v | hook_z              [batch, pos, head, d_head]
//   blocks.L.attn.hook_attn_scores | hook_pattern                [batch, head, query_pos, key_pos]
//   blocks.L.hook_attn_out, hook_resid_mid, ln2.hook_normalized  [batch, pos, d_model]
//   blocks.L.mlp.hook_pre | hook_post                            [batch, pos, d_mlp]
//   blocks.L.hook_mlp_out, hook_resid_post                       [batch, pos, d_model]
//   ln_final.hook_normalized                                     [batch, pos, d_model]
//   logits, probs                                                [batch, pos, d_vocab]
// The Llama family adds (and has no hook_pos_embed):
//   blocks.L.ln1.hook_scale, ln2.hook_scale, ln_final.hook_scale  [batch, pos, one]  RMSNorm's √(mean(x²) + ε)
//   blocks.L.attn.hook_rot_q | hook_rot_k                        [batch, pos, head, d_head]  after the rotation
//   blocks.L.mlp.hook_pre_linear                                 [batch, pos, d_mlp]  SwiGLU's up projection
// and its hook_k / hook_v have the key/value heads (grouped-query attention).
// hook_normalized is TransformerLens's: (x − mean) / √(var + ε), before the layer
// norm's own weight and bias (RMSNorm: x / hook_scale). probs (softmax of logits) is not a TransformerLens hook.
// An attention-only model (config.mlp = mlp_kind::none) has no hook_resid_mid, ln2 or mlp
// hooks: its hook_resid_post = hook_resid_pre + hook_attn_out.
#pragma once

#include <string>
#include <vector>

#include "model/params.hpp"

namespace attn::model {

// Where a hook sits: once per model, or once per block (its name gets "blocks.L.").
enum class hook_scope { model, block };

struct hook_info {
    const char* name;               // "attn.hook_pattern" (block hooks without "blocks.L.")
    hook_scope scope;
    std::vector<const char*> axes;  // {"batch", "head", "query_pos", "key_pos"}
    const char* what;               // one line for people
    bool needs_mlp;                 // only in models with MLP blocks
    // Only in the architectures this says yes to (RMSNorm's hook_scale, rotary's hook_rot_q,
    // SwiGLU's hook_pre_linear, learned positions' hook_pos_embed); null: every model.
    bool (*applies)(const architecture&) = nullptr;
};

// Every hook in forward order (block hooks once, in the order a block computes them).
const std::vector<hook_info>& model_hooks();

// One hook of one model, its name in full ("blocks.0.attn.hook_pattern").
struct hook_name {
    std::string name;
    const hook_info* info;
    std::size_t layer;  // the block (block hooks only)
};
// Every hook this config's model has, in forward order (embed, pos_embed, block 0 …,
// ln_final, logits, probs).
std::vector<hook_name> hook_names(const architecture& config);

// The hook whose full name is `name` ("blocks.1.attn.hook_z"), or nullopt-like: info
// nullptr when the model has no such hook.
hook_name find_hook(const architecture& config, const std::string& name);

}  // namespace attn::model
