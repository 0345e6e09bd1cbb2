// trace/stages.cpp — see stages.hpp.
#include "trace/stages.hpp"

#include <stdexcept>

#include "io/terminal_safe.hpp"

namespace attn::trace {

const std::vector<stage_info>& all_stages() {
    static const std::vector<stage_info> stages = {
        {stage::q, "hook_q", "q", "queries Q", 1},
        {stage::k, "hook_k", "k", "keys K", 1},
        {stage::v, "hook_v", "v", "values V", 1},
        {stage::scores_raw, "hook_attn_scores_raw", "raw", "raw scores Q·Kᵀ", 2},
        {stage::scores_scaled, "hook_attn_scores_scaled", "scaled", "scaled scores S = Q·Kᵀ / √d_k", 3},
        {stage::scores_masked, "hook_attn_scores", "masked", "masked scores (S + bias, -inf where blocked)", 3},
        {stage::weights, "hook_pattern", "weights", "weights softmax(S)", 4},
        {stage::output, "hook_z", "output", "output weights·V", 4},
    };
    return stages;
}

const stage_info& info(stage s) {
    for (const auto& i : all_stages())
        if (i.id == s) return i;
    throw std::logic_error("unknown stage");
}

std::optional<stage> parse_stage(const std::string& name) {
    for (const auto& i : all_stages())
        if (name == i.hook || name == i.alias) return i.id;
    return std::nullopt;
}

std::string stage_alias_list() {
    std::string s;
    for (const auto& i : all_stages()) s += (s.empty() ? "" : ", ") + std::string(i.alias);
    return s;
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
        case stage::output: return s.output;
    }
    throw std::logic_error("unknown stage");
}

table stage_table(const attention_steps& steps, stage s, const run_labels& l, int decimals) {
    const stage_info& si = info(s);
    const int dp = decimals >= 0 ? decimals : si.decimals;
    const std::string scores_axes = "rows: " + l.query_side + " · columns: " + l.key_side;
    const std::string corner = l.q_name + " \\ " + l.k_name;
    const std::string title = l.title + " " + si.what;
    switch (s) {
        case stage::q:
            return make_table(l.title + " " + l.q_name + " (" + si.what + ")", "rows: " + l.query_side + " · columns: dimensions",
                              l.q_name, l.query_tokens, dimension_labels(steps.d_k()), steps.q, dp);
        case stage::k:
            return make_table(l.title + " " + l.k_name + " (" + si.what + ")", "rows: " + l.key_side + " · columns: dimensions",
                              l.k_name, l.key_tokens, dimension_labels(steps.d_k()), steps.k, dp);
        case stage::v:
            return make_table(l.title + " " + l.v_name + " (" + si.what + ")", "rows: " + l.key_side + " · columns: dimensions",
                              l.v_name, l.key_tokens, dimension_labels(steps.d_v()), steps.v, dp);
        case stage::scores_raw:
            return make_table(title, scores_axes, corner, l.query_tokens, l.key_tokens, steps.scores_raw, dp);
        case stage::scores_scaled:
            return make_table(title, scores_axes, corner, l.query_tokens, l.key_tokens, steps.scores_scaled, dp);
        case stage::scores_masked:
            return make_table(title, scores_axes, corner, l.query_tokens, l.key_tokens, steps.scores_masked, dp);
        case stage::weights:
            return make_table(title, scores_axes, corner, l.query_tokens, l.key_tokens, steps.weights, dp);
        case stage::output:
            return make_table(title, "rows: " + l.query_side + " · columns: dimensions", "O", l.query_tokens,
                              dimension_labels(steps.d_v()), steps.output, dp);
    }
    throw std::logic_error("unknown stage");
}

run_labels terminal_safe_labels(const run_labels& labels) {
    run_labels out = labels;
    for (std::string* s : {&out.title, &out.query_side, &out.key_side, &out.q_name, &out.k_name, &out.v_name})
        *s = io::terminal_safe(*s);
    for (auto& t : out.query_tokens) t = io::terminal_safe(t);
    for (auto& t : out.key_tokens) t = io::terminal_safe(t);
    return out;
}

}  // namespace attn::trace
