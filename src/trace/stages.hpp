// trace/stages.hpp — the one stage vocabulary of attn: every stage of an attention
// computation with its TransformerLens name, its export axes, a one-line description,
// whether it is a [query × key] score map, and its printed decimals. The tracer's
// tables, every exporter (JSON, .npy, CSV, HTML), `attn trace --stage`, the lessons
// and the grader read this table; nothing else spells a stage name.
//
// Names mirror TransformerLens where the stage matches (hook_q, hook_k, hook_v,
// hook_attn_scores = scaled and masked, hook_pattern = softmax weights, hook_z =
// weights·V per head, hook_result = z_h·W_O per head, hook_attn_out = Σ_h hook_result)
// and add what it lacks (hook_attn_scores_raw = QKᵀ, hook_attn_scores_scaled =
// before the mask). Each stage also has the short word the lessons use (q, k, v, raw,
// scaled, masked, weights, output, result, attn_out). "output" is the lessons' word for
// one head's weights·V (hook_z), never the W_O-projected sum (attn_out).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/attention.hpp"
#include "trace/style.hpp"
#include "trace/table.hpp"

namespace attn::trace {

enum class stage {
    q, k, v, scores_raw, scores_scaled, scores_masked, weights, z, result, attn_out,  // the forward
    rot_q, rot_k,                                                                     // rope (lesson 17)
    tiled_running_max, tiled_running_sum, tiled_correction, tiled_partial_output, tiled_z,  // tile (lesson 16)
    grad_z, grad_v, grad_pattern, grad_attn_scores, grad_attn_scores_raw, grad_q, grad_k,  // backward (lesson 15)
};

// What a spec must give for a stage to exist.
enum class stage_needs { nothing, w_o, rope, tile, backward };

// How a stage is laid out in exports (C order), after TransformerLens.
enum class stage_layout {
    per_position,  // [batch, pos, head, d]        hook_q, hook_k, hook_v, hook_z, hook_result
    per_head,      // [batch, head, query_pos, key_pos|block]   the score stages, tiled_* maps
    summed_heads,  // [batch, query_pos, d_model]  hook_attn_out
    per_block,     // [batch, head, block, query_pos, d_head_v]  tiled_partial_output (one matrix per key block)
};

struct stage_info {
    stage id;
    const char* hook;               // TransformerLens name: "hook_pattern"
    const char* alias;              // the lessons' word: "weights"
    std::vector<const char*> axes;  // export axes: {"batch", "head", "query_pos", "key_pos"}
    stage_layout layout;
    const char* what;               // one line for people: "softmax over key_pos (...)"
    const char* caption;            // word in table titles: "weights softmax(S)"
    bool is_score;                  // a forward [query × key] score map: heatmaps, masks
    int decimals;                   // printed decimals, as the seeds print them
    stage_needs needs;              // only when the spec gives W_O, rope, tile or backward
};

// Every stage, in computation order. The one table.
const std::vector<stage_info>& all_stages();
// The stages one head's attention_steps holds (q … z).
std::vector<stage_info> head_stages();
const stage_info& info(stage s);
// Accepts a TransformerLens name or the lessons' word; nullopt if unknown.
std::optional<stage> parse_stage(const std::string& name);
// The same for the stages of one head only (lessons: a run has no W_O).
std::optional<stage> parse_head_stage(const std::string& name);
// "q, k, v, raw, scaled, masked, weights, output" (head stages) for lesson errors.
std::string stage_alias_list();
// "hook_q (q), hook_k (k), …, hook_attn_out (attn_out)" — every stage, for --stage errors.
std::string stage_name_list();
// The vocabulary as the README's Markdown table: | stage | shape | what |.
std::string stage_markdown_table();
// "[batch, head, query_pos, key_pos]"
std::string axes_text(const stage_info& si);

// The matrix of one head stage of a run; throws std::invalid_argument for
// result/attn_out, which one head's attention_steps does not hold.
const matrix& stage_matrix(const attention_steps& steps, stage s);

// How the two sequences of one attention run are called in its tables and traces.
struct run_labels {
    std::string title;                       // "Cross-attention" / "Self-attention"
    std::vector<std::string> query_tokens;   // [n_q]
    std::vector<std::string> key_tokens;     // [n_k]
    std::string query_side = "queries";      // "decoder queries"
    std::string key_side = "keys";           // "encoder keys"
    std::string q_name = "Q", k_name = "K", v_name = "V";  // "Q_dec", "K_enc", "V_enc"
};

// The axes one head's matrix of a stage runs along: its rows "query_pos" or "key_pos",
// its columns the last export axis ("key_pos", "block", "d_head", "d_head_v", "d_model").
struct matrix_axes {
    std::string rows, cols;
};
matrix_axes matrix_axes_of(stage s);

// What a stage table of one head calls its rows, columns and corner.
struct stage_frame {
    std::string title, axes, corner;
    const std::vector<std::string>* row_labels = nullptr;  // query or key tokens
    enum { keys, dims, blocks } columns = dims;            // key tokens, d0…, key blocks
};
stage_frame frame_of(stage s, const run_labels& labels);

// The same labels with every name made terminal-safe (io/terminal_safe.hpp): token
// names and titles come from users' files and are printed by every renderer.
// Also shortened ("…"): a token label to max_label_columns, a title or name to
// max_title_columns, so that a megabyte token costs no more than a short one in
// every table, heatmap and per-token trace it labels.
constexpr std::size_t max_label_columns = 40;
constexpr std::size_t max_title_columns = 200;
run_labels terminal_safe_labels(const run_labels& labels);

// The labeled table of one head stage of a run, with the seed's decimals by default.
table stage_table(const attention_steps& steps, stage s, const run_labels& labels, int decimals = -1);

}  // namespace attn::trace
