// trace/stages.cpp — see stages.hpp: the vocabulary of core/stages.cpp as tables,
// frames and docs/trace.md's Markdown.
#include "trace/stages.hpp"

#include <stdexcept>
#include <unordered_map>

#include "io/terminal_safe.hpp"
#include "trace/text_width.hpp"

namespace attn::trace {

std::string stage_markdown_table() {
    std::string out = "| stage | shape | what |\n|---|---|---|\n";
    for (const auto& si : all_stages())
        out += "| `" + std::string(si.hook) + "` | `" + axes_text(si) + "` | " + si.what + " |\n";
    return out;
}

stage_frame frame_of(stage s, const run_labels& l) {
    const stage_info& si = stage_info_of(s);
    const matrix_axes axes = matrix_axes_of(s);
    const bool key_rows = axes.rows == "key_pos";
    const std::string& last = axes.cols;
    stage_frame f;
    f.row_labels = key_rows ? &l.key_tokens : &l.query_tokens;
    f.columns = last == "key_pos" ? stage_frame::keys : last == "block" ? stage_frame::blocks : stage_frame::dims;
    f.axes = "rows: " + (key_rows ? l.key_side : l.query_side) + " · columns: " +
             (f.columns == stage_frame::keys ? l.key_side : f.columns == stage_frame::blocks ? "after each key block" : last == "d_model" ? "d_model" : "dimensions");
    f.title = l.title + " " + si.caption;
    f.corner = si.alias;
    if (s == stage::q || s == stage::k || s == stage::v) {
        const std::string& name = s == stage::q ? l.q_name : s == stage::k ? l.k_name : l.v_name;
        f.title = l.title + " " + name + " (" + si.caption + ")";
        f.corner = name;
    } else if (f.columns == stage_frame::keys) {
        f.corner = l.q_name + " \\ " + l.k_name;
    } else if (s == stage::z) {
        f.corner = "O";
    }
    return f;
}

table stage_table(const attention_steps& steps, stage s, const run_labels& given, int decimals) {
    const run_labels l = told_apart(given);
    const matrix& m = stage_matrix(steps, s);
    const stage_frame f = frame_of(s, l);
    const int dp = decimals >= 0 ? decimals : stage_info_of(s).decimals;
    return make_table(f.title, f.axes, f.corner, *f.row_labels,
                      f.columns == stage_frame::keys ? l.key_tokens : dimension_labels(m.shape(1)), m, dp);
}

run_labels terminal_safe_labels(const run_labels& labels) {
    run_labels out = labels;
    for (std::string* s : {&out.title, &out.query_side, &out.key_side, &out.q_name, &out.k_name, &out.v_name})
        *s = shorten(io::terminal_safe(*s), max_title_columns);
    for (auto& t : out.query_tokens) t = shorten(io::terminal_safe(t), max_label_columns);
    for (auto& t : out.key_tokens) t = shorten(io::terminal_safe(t), max_label_columns);
    return out;
}

std::string position_subscript(std::size_t pos) {
    static const char* const digits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
    std::string s;
    do {
        s.insert(0, digits[pos % 10]);
        pos /= 10;
    } while (pos > 0);
    return s;
}

std::vector<std::string> told_apart(const std::vector<std::string>& labels) {
    std::unordered_map<std::string, std::size_t> count;  // label → how many times it occurs
    for (const auto& t : labels) ++count[t];
    std::vector<std::string> out = labels;
    for (std::size_t i = 0; i < out.size(); ++i)
        if (count[labels[i]] > 1) out[i] += position_subscript(i);
    return out;
}

run_labels told_apart(run_labels labels) {
    labels.query_tokens = told_apart(labels.query_tokens);
    labels.key_tokens = told_apart(labels.key_tokens);
    return labels;
}

run_labels labels_on_screen(const run_labels& labels) { return told_apart(terminal_safe_labels(labels)); }

}  // namespace attn::trace
