// trace/stages.cpp — see stages.hpp. The table below is the only place a stage's
// names, axes and description are written down.
#include "trace/stages.hpp"

#include <stdexcept>

namespace attn::trace {

const std::vector<stage_info>& all_stages() {
    using L = stage_layout;
    static const std::vector<stage_info> stages = {
        {stage::q, "hook_q", "q", {"batch", "query_pos", "head", "d_head"}, L::per_position, "queries", "queries Q", false, 1,
         false},
        {stage::k, "hook_k", "k", {"batch", "key_pos", "head", "d_head"}, L::per_position, "keys", "keys K", false, 1, false},
        {stage::v, "hook_v", "v", {"batch", "key_pos", "head", "d_head_v"}, L::per_position, "values", "values V", false, 1,
         false},
        {stage::scores_raw, "hook_attn_scores_raw", "raw", {"batch", "head", "query_pos", "key_pos"}, L::per_head, "Q·Kᵀ",
         "raw scores Q·Kᵀ", true, 2, false},
        {stage::scores_scaled, "hook_attn_scores_scaled", "scaled", {"batch", "head", "query_pos", "key_pos"}, L::per_head,
         "Q·Kᵀ ÷ scale", "scaled scores S = Q·Kᵀ / √d_k", true, 3, false},
        {stage::scores_masked, "hook_attn_scores", "masked", {"batch", "head", "query_pos", "key_pos"}, L::per_head,
         "scaled + bias, −inf where masked", "masked scores (S + bias, -inf where blocked)", true, 3, false},
        {stage::weights, "hook_pattern", "weights", {"batch", "head", "query_pos", "key_pos"}, L::per_head,
         "softmax over `key_pos` (a fully masked row is 0, never NaN)", "weights softmax(S)", true, 4, false},
        {stage::z, "hook_z", "output", {"batch", "query_pos", "head", "d_head_v"}, L::per_position,
         "pattern · V (one head's output)", "output weights·V", false, 4, false},
        {stage::result, "hook_result", "result", {"batch", "query_pos", "head", "d_model"}, L::per_position,
         "z_h · W_O rows of head h (only with `W_O`)", "result z·W_O (hook_result)", false, 4, true},
        {stage::attn_out, "hook_attn_out", "attn_out", {"batch", "query_pos", "d_model"}, L::summed_heads,
         "Σ over heads of `hook_result` (only with `W_O`)", "attn_out Σ heads (hook_attn_out)", false, 4, true},
    };
    return stages;
}

std::vector<stage_info> head_stages() {
    std::vector<stage_info> out;
    for (const auto& si : all_stages())
        if (!si.needs_w_o) out.push_back(si);
    return out;
}

const stage_info& info(stage s) {
    for (const auto& i : all_stages())
        if (i.id == s) return i;
    throw std::logic_error("stage missing from the vocabulary table");
}

std::optional<stage> parse_stage(const std::string& name) {
    for (const auto& i : all_stages())
        if (name == i.hook || name == i.alias) return i.id;
    return std::nullopt;
}

std::optional<stage> parse_head_stage(const std::string& name) {
    const auto s = parse_stage(name);
    if (s && info(*s).needs_w_o) return std::nullopt;
    return s;
}

std::string stage_alias_list() {
    std::string s;
    for (const auto& i : head_stages()) s += (s.empty() ? "" : ", ") + std::string(i.alias);
    return s;
}

std::string stage_name_list() {
    std::string s;
    for (const auto& i : all_stages()) s += (s.empty() ? "" : ", ") + std::string(i.hook) + " (" + i.alias + ")";
    return s;
}

std::string axes_text(const stage_info& si) {
    std::string s = "[";
    for (std::size_t i = 0; i < si.axes.size(); ++i) s += (i ? ", " : "") + std::string(si.axes[i]);
    return s + "]";
}

std::string stage_markdown_table() {
    std::string out = "| stage | shape | what |\n|---|---|---|\n";
    for (const auto& si : all_stages())
        out += "| `" + std::string(si.hook) + "` | `" + axes_text(si) + "` | " + si.what + " |\n";
    return out;
}

const matrix& stage_matrix(const attention_steps& s, stage st) {
    switch (st) {
        case stage::q: return s.q;
        case stage::k: return s.k;
        case stage::v: return s.v;
        case stage::scores_raw: return s.scores_raw;
        case stage::scores_scaled: return s.scores_scaled;
        case stage::scores_masked: return s.scores_masked;
        case stage::weights: return s.weights;
        case stage::z: return s.output;
        case stage::result:
        case stage::attn_out: break;
    }
    throw std::invalid_argument(std::string("stage ") + info(st).hook + " needs W_O: one head's attention steps do not hold it");
}

stage_frame frame_of(stage s, const run_labels& l) {
    const stage_info& si = info(s);
    const std::string scores_axes = "rows: " + l.query_side + " · columns: " + l.key_side;
    const std::string query_dims = "rows: " + l.query_side + " · columns: dimensions";
    const std::string key_dims = "rows: " + l.key_side + " · columns: dimensions";
    const std::string query_model = "rows: " + l.query_side + " · columns: d_model";
    switch (s) {
        case stage::q: return {l.title + " " + l.q_name + " (" + si.caption + ")", query_dims, l.q_name, &l.query_tokens, false};
        case stage::k: return {l.title + " " + l.k_name + " (" + si.caption + ")", key_dims, l.k_name, &l.key_tokens, false};
        case stage::v: return {l.title + " " + l.v_name + " (" + si.caption + ")", key_dims, l.v_name, &l.key_tokens, false};
        case stage::scores_raw:
        case stage::scores_scaled:
        case stage::scores_masked:
        case stage::weights:
            return {l.title + " " + si.caption, scores_axes, l.q_name + " \\ " + l.k_name, &l.query_tokens, true};
        case stage::z: return {l.title + " " + si.caption, query_dims, "O", &l.query_tokens, false};
        case stage::result: return {l.title + " " + si.caption, query_model, "result", &l.query_tokens, false};
        case stage::attn_out: return {l.title + " " + si.caption, query_model, "attn_out", &l.query_tokens, false};
    }
    throw std::logic_error("stage missing from frame_of");
}

table stage_table(const attention_steps& steps, stage s, const run_labels& l, int decimals) {
    const matrix& m = stage_matrix(steps, s);
    const stage_frame f = frame_of(s, l);
    const int dp = decimals >= 0 ? decimals : info(s).decimals;
    return make_table(f.title, f.axes, f.corner, *f.row_labels, f.columns_are_keys ? l.key_tokens : dimension_labels(m.shape(1)),
                      m, dp);
}

}  // namespace attn::trace
