// trace/shape_table.cpp — see shape_table.hpp. The rows follow seed 004's questions
// (single-head cross-attention, then the decoder block) and seed 001's table.
#include "trace/shape_table.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <stdexcept>

#include "trace/table.hpp"
#include "trace/text_width.hpp"

namespace attn::trace {

namespace {

shape_row row(const std::string& tensor, const std::string& shape, const std::string& what) {
    return {tensor, parse_shape(shape), what};
}

std::vector<shape_row> cross_rows() {
    return {
        row("X_tgt", "B × n_tgt × d", "target (decoder) tokens"),
        row("X_src", "B × n_src × d", "source (encoder) tokens"),
        row("W^(q)", "d × d_q", "query projection"),
        row("W^(k)", "d × d_q", "key projection (d_k = d_q)"),
        row("W^(v)", "d × d_v", "value projection"),
        row("Q = X_tgt W^(q)", "B × n_tgt × d_q", "queries come from the target"),
        row("K = X_src W^(k)", "B × n_src × d_q", "keys come from the source"),
        row("V = X_src W^(v)", "B × n_src × d_v", "values come from the source"),
        row("Q Kᵀ", "B × n_tgt × n_src", "one score per target–source pair"),
        row("A = softmax(Q Kᵀ/√d_q)", "B × n_tgt × n_src", "each row sums to 1 over the source"),
        row("Z = A V", "B × n_tgt × d_v", "one value blend per target token"),
    };
}

std::vector<shape_row> multi_head_rows() {
    return {
        row("X_tgt", "B × n_tgt × d", "target tokens"),
        row("X_src", "B × n_src × d", "source tokens"),
        row("W^(q), W^(k)", "d × H·d_q", "all heads' projections side by side"),
        row("W^(v)", "d × H·d_v", ""),
        row("Q", "B × n_tgt × H·d_q", "before the split"),
        row("Q split into heads", "B × H × n_tgt × d_q", "reshape (n, H, d_q), then swap n and H"),
        row("K, split", "B × H × n_src × d_q", ""),
        row("V, split", "B × H × n_src × d_v", ""),
        row("A_h (every head)", "B × H × n_tgt × n_src", "one attention pattern per head"),
        row("H_h = A_h V_h", "B × H × n_tgt × d_v", ""),
        row("Concat(H_1 … H_H)", "B × n_tgt × H·d_v", "heads side by side again"),
        row("W^(o)", "H·d_v × d", "back to the model width"),
        row("Y = Concat · W^(o)", "B × n_tgt × d", "same shape as the input stream"),
    };
}

// Lesson 18: H query heads sharing G key/value heads, and the KV cache that shrinks with G.
std::vector<shape_row> grouped_query_rows() {
    return {
        row("X", "B × n × d", "input tokens"),
        row("W^(q)", "d × H·d_head", "H query heads"),
        row("W^(k), W^(v)", "d × G·d_head", "G key/value heads"),
        row("Q split into heads", "B × H × n × d_head", ""),
        row("K, V split into heads", "B × G × n × d_head", "shared by H/G query heads"),
        row("A_h (every query head)", "B × H × n × n", "one pattern per query head"),
        row("Concat(Z_1 … Z_H)", "B × n × H·d_head", "as in multi-head attention"),
        row("KV cache, one layer", "2 × B × G × n × d_head", "K and V of each token"),
        row("KV cache, L layers", "L × 2 × B × G × n × d_head", "H/G times less than G = H"),
    };
}

std::vector<shape_row> ffn_rows() {
    return {
        row("X", "B × n × d", "input of the FFN, one row per token"),
        row("W_1", "d × d_ff", "expand (d_ff = 4·d or 5·d)"),
        row("Z = ReLU(X W_1)", "B × n × d_ff", "the hidden layer, token by token"),
        row("W_2", "d_ff × d", "project back"),
        row("Z W_2", "B × n × d", "same shape as X"),
    };
}

std::vector<shape_row> encoder_rows() {
    return {
        row("X", "B × n × d", "input tokens (+ positions)"),
        row("Q, K", "B × H × n × d_q", "per head, from X"),
        row("V", "B × H × n × d_v", ""),
        row("A (no mask)", "B × H × n × n", "every token sees every token"),
        row("Concat · W^(o)", "B × n × d", "self-attention output"),
        row("Add & Norm", "B × n × d", "X + attention, normalised per token"),
        row("ReLU(· W_1)", "B × n × d_ff", "FFN hidden layer"),
        row("· W_2", "B × n × d", "FFN output"),
        row("Add & Norm = block output", "B × n × d", "input of the next block"),
    };
}

std::vector<shape_row> decoder_rows() {
    return {
        row("X", "B × n_tgt × d", "target-side hidden states"),
        row("W_self^(q), W_self^(k)", "d × d_q", "masked self-attention"),
        row("W_self^(v)", "d × d_v", ""),
        row("Q_self, K_self", "B × n_tgt × d_q", "all from the target"),
        row("V_self", "B × n_tgt × d_v", ""),
        row("A_self (causal)", "B × n_tgt × n_tgt", "target over target, lower-triangular"),
        row("H_self = A_self V_self", "B × n_tgt × d_v", ""),
        row("W_self^(o)", "d_v × d", ""),
        row("Y_self", "B × n_tgt × d", "added to X: same shape as X"),
        row("E (encoder output)", "B × n_src × d", "computed once per source"),
        row("W_cross^(q), W_cross^(k)", "d × d_q", "cross-attention's own weights"),
        row("W_cross^(v)", "d × d_v", ""),
        row("Q_cross", "B × n_tgt × d_q", "from the decoder stream"),
        row("K_cross", "B × n_src × d_q", "from the encoder output"),
        row("V_cross", "B × n_src × d_v", "from the encoder output"),
        row("A_cross (no causal mask)", "B × n_tgt × n_src", "target over source"),
        row("H_cross", "B × n_tgt × d_v", ""),
        row("W_cross^(o)", "d_v × d", "back to the model width"),
        row("Y_cross", "B × n_tgt × d", "added to Y_self's stream"),
        row("W_1", "d × d_ff", "FFN"),
        row("Z = Dropout(ReLU(X W_1))", "B × n_tgt × d_ff", ""),
        row("W_2", "d_ff × d", ""),
        row("X̃ = Z W_2 (block output)", "B × n_tgt × d", "same shape as the block's input"),
    };
}

}  // namespace

const std::vector<std::string>& shape_presets() {
    static const std::vector<std::string> p = {"cross", "multi_head", "encoder_block", "decoder_block", "ffn",
                                               "grouped_query"};
    return p;
}

std::string shape_preset_help() {
    return "cross (single-head cross-attention, seed 004 Q1), multi_head (H heads, split and concat), "
           "encoder_block, decoder_block (seed 004 Q2), ffn, grouped_query (H query heads, G key/value heads)";
}

std::vector<shape_row> shape_rows(const std::string& preset) {
    if (preset == "cross") return cross_rows();
    if (preset == "multi_head") return multi_head_rows();
    if (preset == "encoder_block") return encoder_rows();
    if (preset == "decoder_block") return decoder_rows();
    if (preset == "ffn") return ffn_rows();
    if (preset == "grouped_query") return grouped_query_rows();
    throw attn::error("unknown shape table '" + preset + "' (expected one of: " + shape_preset_help() + ")");
}

std::vector<std::string> shape_symbols(const std::string& preset) {
    std::vector<std::string> out;
    for (const auto& r : shape_rows(preset))
        for (const auto& d : r.shape.dims)
            for (const auto& [sym, power] : d.factors())
                if (std::find(out.begin(), out.end(), sym) == out.end()) out.push_back(sym);
    return out;
}

namespace {

// Whether the table's rows fit `width` columns in one part: two columns of indent,
// the tensor names, then each column after two blanks (trace/table.cpp's layout).
bool fits(const table& t, std::size_t width) {
    std::size_t label_w = display_width(t.corner);
    for (const auto& r : t.row_labels) label_w = std::max(label_w, display_width(r));
    std::size_t total = 2 + label_w;
    for (std::size_t j = 0; j < t.col_labels.size(); ++j) {
        std::size_t w = display_width(t.col_labels[j]);
        for (const auto& c : t.cells) w = std::max(w, display_width(c[j]));
        total += 2 + w;
    }
    return total <= width;
}

}  // namespace

std::string render_shape_table(const std::string& preset, const symbol_values& values, const style& st) {
    const auto rows = shape_rows(preset);
    table t;
    std::string words = preset;  // "decoder_block" reads "decoder block"
    std::replace(words.begin(), words.end(), '_', ' ');
    t.title = "Shapes: " + words;
    t.corner = "tensor";
    t.shape = "[" + std::to_string(rows.size()) + " tensors]";
    const bool numbers = !values.empty();
    if (numbers) {
        std::string given;
        for (const auto& sym : shape_symbols(preset)) {
            auto it = values.find(sym);
            if (it == values.end())
                throw shape_eval_error("the shape table '" + preset + "' needs a value for " + sym, sym);
            given += (given.empty() ? "" : ", ") + sym + " = " + std::to_string(it->second);
        }
        t.axes = given;
        t.col_labels = {"shape", "with numbers", "what it is"};
    } else {
        t.axes = "symbolic; give numbers to evaluate";
        t.col_labels = {"shape", "what it is"};
    }
    for (const auto& r : rows) {
        t.row_labels.push_back(r.tensor);
        if (numbers) t.cells.push_back({to_string(r.shape), to_string(evaluate(r.shape, values)), r.what});
        else t.cells.push_back({to_string(r.shape), r.what});
    }
    // With numbers, a table too wide for the screen would be split in two parts that
    // repeat every tensor; its words are the symbolic table's, so they go instead.
    std::string note;
    if (numbers && !fits(t, st.width)) {
        t.col_labels.pop_back();
        for (auto& c : t.cells) c.pop_back();
        note = "  (what each tensor is: the symbolic table, `attn shapes " + preset + "`)\n";
    }
    // Text columns read better left-aligned: pad labels and cells to the column's
    // width ourselves, so the table's right alignment has nothing left to do.
    for (std::size_t j = 0; j < t.col_labels.size(); ++j) {
        std::size_t w = display_width(t.col_labels[j]);
        for (const auto& c : t.cells) w = std::max(w, display_width(c[j]));
        if (j + 1 == t.col_labels.size()) {  // no trailing blanks at line ends
            for (auto& c : t.cells) w = std::max(w, display_width(c[j]));
        }
        t.col_labels[j] = pad_right(t.col_labels[j], w);
        for (auto& c : t.cells) c[j] = pad_right(c[j], w);
    }
    std::string out = render(t, st);
    // Strip the blanks the padding of the last column left at line ends.
    std::string clean;
    std::size_t start = 0;
    while (start < out.size()) {
        std::size_t end = out.find('\n', start);
        std::string line = out.substr(start, end - start);
        while (!line.empty() && line.back() == ' ') line.pop_back();
        clean += line + "\n";
        start = end + 1;
    }
    return clean + note;
}

}  // namespace attn::trace
