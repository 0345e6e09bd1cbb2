// trace/stages.hpp — the stage vocabulary (core/stages.hpp) as the tracer prints it:
// docs/trace.md's Markdown table (`attn trace --list-stages`), what a table of one head's
// stage calls its rows, columns and corner (frame_of), the labels of a run made
// terminal-safe, and one head stage of a run as a labeled table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/attention.hpp"
#include "core/stages.hpp"
#include "trace/style.hpp"
#include "trace/table.hpp"

namespace attn::trace {

// The vocabulary as docs/trace.md's Markdown table: | stage | shape | what |.
std::string stage_markdown_table();

// How the two sequences of one attention run are called in its tables and traces.
struct run_labels {
    std::string title;                       // "Cross-attention" / "Self-attention"
    std::vector<std::string> query_tokens;   // [n_q]
    std::vector<std::string> key_tokens;     // [n_k]
    std::string query_side = "queries";      // "decoder queries"
    std::string key_side = "keys";           // "encoder keys"
    std::string q_name = "Q", k_name = "K", v_name = "V";  // "Q_dec", "K_enc", "V_enc"
};

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

// "₁₂" for position 12: written under a token label ("the₄") so that equal tokens stay
// apart wherever rows and columns are labelled by token.
std::string position_subscript(std::size_t pos);
// One axis's labels with each label that occurs more than once followed by its position
// from 0 ("the₀ cat sat on the₄"); labels that occur once stay as they are.
std::vector<std::string> told_apart(const std::vector<std::string>& labels);
// The same for both token axes of a run.
run_labels told_apart(run_labels labels);
// What every table, heatmap and per-token trace of a run prints: terminal_safe_labels,
// then told_apart (after shortening, so two long labels cut alike are told apart too).
run_labels labels_on_screen(const run_labels& labels);

// The labeled table of one head stage of a run, with the seed's decimals by default.
table stage_table(const attention_steps& steps, stage s, const run_labels& labels, int decimals = -1);

}  // namespace attn::trace
