// trace/export.hpp — every stage of a trace run under stable names, for files.
//
// Names mirror TransformerLens where the stage matches, and so do the layouts:
//   hook_q                   [batch, query_pos, head, d_head]
//   hook_k                   [batch, key_pos, head, d_head]
//   hook_v                   [batch, key_pos, head, d_head_v]
//   hook_attn_scores_raw     [batch, head, query_pos, key_pos]   Q·Kᵀ
//   hook_attn_scores_scaled  [batch, head, query_pos, key_pos]   ÷ scale
//   hook_attn_scores         [batch, head, query_pos, key_pos]   + bias, -inf where blocked
//   hook_pattern             [batch, head, query_pos, key_pos]   softmax over key_pos
//   hook_z                   [batch, query_pos, head, d_head_v]  pattern · V
//   hook_result              [batch, query_pos, head, d_model]   z_h · W_O (only with W_O)
//   hook_attn_out            [batch, query_pos, d_model]         Σ_h hook_result (only with W_O)
// batch and head are always present (size 1 when the spec has neither).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "trace/trace_run.hpp"

namespace attn::trace {

struct export_stage {
    stage id;
    std::string name;                // "hook_pattern"
    std::vector<std::string> axes;   // {"batch", "head", "query_pos", "key_pos"}
    std::vector<std::size_t> shape;  // one per axis
    std::vector<double> data;        // C order
};

std::vector<export_stage> export_stages(const trace_run& run);

// The whole run as JSON: metadata, tokens and every stage with axes, shape and
// nested data at full precision (shortest form that round-trips). JSON has no
// infinity: blocked cells of hook_attn_scores are null (the .npy keeps -inf).
std::string to_json(const trace_run& run);

// One "<stage>.npy" per stage (float64, C order, the shapes above).
std::map<std::string, std::string> npy_files(const trace_run& run);

// One CSV per 2-D slice: "<stage>.b<B>.h<H>.csv" with a header row of column labels
// (key tokens or d0..), then one row per query token, first cell the token.
// hook_attn_out: "<stage>.b<B>.csv". Numbers at full precision; blocked cells "-inf".
std::map<std::string, std::string> csv_files(const trace_run& run);

}  // namespace attn::trace
