// trace/stages.hpp — the names of the stages and how each is shown.
// Names mirror TransformerLens where the stage matches (hook_q, hook_k, hook_v,
// hook_attn_scores = scaled and masked, hook_pattern = softmax weights, hook_z =
// weights·V) and add what it lacks (hook_attn_scores_raw = QKᵀ,
// hook_attn_scores_scaled = before the mask). Lesson files and exporters use
// these names; short aliases (q, k, v, raw, scaled, masked, weights, output) too.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/attention.hpp"
#include "trace/style.hpp"
#include "trace/table.hpp"

namespace attn::trace {

enum class stage { q, k, v, scores_raw, scores_scaled, scores_masked, weights, output };

struct stage_info {
    stage id;
    const char* hook;   // "hook_pattern"
    const char* alias;  // "weights"
    const char* what;   // "softmax weights"
    int decimals;       // as the seeds print them
};

const std::vector<stage_info>& all_stages();
const stage_info& info(stage s);
// Accepts a hook name or an alias; nullopt if unknown.
std::optional<stage> parse_stage(const std::string& name);
// "q, k, v, raw, scaled, masked, weights, output" for error messages.
std::string stage_alias_list();

// The matrix of one stage of a run.
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

// The same labels with every name made terminal-safe (io/terminal_safe.hpp): token
// names and titles come from users' files and are printed by every renderer.
run_labels terminal_safe_labels(const run_labels& labels);

// The labeled table of one stage of a run, with the seed's decimals by default.
table stage_table(const attention_steps& steps, stage s, const run_labels& labels, int decimals = -1);

}  // namespace attn::trace
