// model/tasks.cpp — the training tasks' batches and default models (see the header).
#include "model/tasks.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <stdexcept>

#include "io/input_error.hpp"
#include "io/input_read.hpp"

namespace attn::model {

namespace {

architecture default_model(std::size_t layers, std::size_t heads, std::size_t d, std::size_t vocab,
                         std::size_t positions, bool mlp, bool tied) {
    architecture c;
    c.n_layer = layers;
    c.n_head = heads;
    c.n_embd = d;
    c.vocab_size = vocab;
    c.n_positions = positions;
    c.mlp = mlp ? mlp_kind::gelu_tanh : mlp_kind::none;
    c.tied = tied;
    return c;
}

train_task digits_task(const std::string& name, std::size_t digits, std::size_t base) {
    train_task t;
    t.name = name;
    t.digits = digits;
    t.vocab_size = base;
    t.seq_len = 2 * t.digits - 1;
    // minGPT's GPT: untied lm_head (nn.Linear without bias), MLP blocks.
    t.model = default_model(3, 3, 48, t.vocab_size, t.seq_len, true, false);
    return t;
}

train_task induction_task() {
    train_task t;
    t.name = "induction";
    t.block = 12;
    t.min_block = 4;
    t.lr = 2e-3;
    t.vocab_size = 64;  // 0 = BOS, 1 … 63 the chain's tokens
    t.seq_len = 32;
    t.followers = 8;
    // The chain's table: a fixed draw (not the run's seed), so every run learns one chain.
    prng g(combine_seed({"attn induction task followers"}));
    t.follow.resize(t.vocab_size * t.followers);  // [vocab_size, followers]
    for (auto& f : t.follow) f = static_cast<std::int32_t>(g.uniform_int(1, static_cast<std::int64_t>(t.vocab_size) - 1));
    // The induction head forms between steps 3,000 and 4,000; the steps after it, at a
    // learning rate decayed along a cosine, sharpen the copy: the loss on the copy after
    // its first token falls from 12% of the first block's (6,000 steps, no decay) to < 10%.
    t.iters = 8000;
    t.cosine = true;
    t.model = default_model(2, 1, 64, t.vocab_size, t.seq_len, false, false);
    return t;
}

}  // namespace

const std::vector<std::string>& task_names() {
    static const std::vector<std::string> names{"sort", "reverse", "copy", "induction"};
    return names;
}

train_task make_task(const std::string& name) {
    if (name == "sort" || name == "reverse" || name == "copy") return digits_task(name, 6, 3);
    if (name == "induction") return induction_task();
    throw attn::error("unknown task '" + name + "': expected sort, reverse, copy or induction");
}

train_task make_digits_task(const std::string& name, std::size_t digits, std::size_t base) {
    if (name != "sort" && name != "reverse" && name != "copy")
        throw attn::error("the task '" + name + "' has no digits to set: --digits and --base are for sort, reverse and copy");
    if (digits < 1 || digits > max_task_digits)
        throw attn::error("expected 1 … " + std::to_string(max_task_digits) + " digits, found " + std::to_string(digits));
    if (base < 2 || base > max_task_base)
        throw attn::error("expected a base of 2 … " + std::to_string(max_task_base) + " (digits 0 … base − 1), found " +
                          std::to_string(base));
    return digits_task(name, digits, base);
}

std::vector<std::int32_t> task_sequence(const train_task& task, const std::vector<std::int32_t>& input) {
    std::vector<std::int32_t> seq(input);
    if (task.name == "induction") {  // BOS, the block, the block again
        seq.assign(1, 0);
        for (int copy = 0; copy < 2; ++copy) seq.insert(seq.end(), input.begin(), input.end());
        return seq;
    }
    std::vector<std::int32_t> second(input);
    if (task.name == "sort") std::sort(second.begin(), second.end());
    if (task.name == "reverse") std::reverse(second.begin(), second.end());
    seq.insert(seq.end(), second.begin(), second.end());
    return seq;
}

void train_task::fill_batch(prng& g, std::int32_t* tokens, std::int32_t* targets, std::size_t B) const {
    std::vector<std::int32_t> input, seq;
    for (std::size_t b = 0; b < B; ++b) {
        std::int32_t* x = tokens + b * seq_len;   // [seq_len]
        std::int32_t* y = targets + b * seq_len;  // [seq_len]
        if (!lines.empty()) {
            const auto pick = g.uniform_int(0, static_cast<std::int64_t>(lines.size()) - 1);
            fill_line(lines[static_cast<std::size_t>(pick)], x, y);
            continue;
        }
        if (digits == 0) {
            fill_induction(g, x, y);
            continue;
        }
        input.resize(digits);
        for (auto& d : input) d = static_cast<std::int32_t>(g.uniform_int(0, static_cast<std::int64_t>(vocab_size) - 1));
        seq = task_sequence(*this, input);
        for (std::size_t t = 0; t < seq_len; ++t) {
            x[t] = seq[t];
            y[t] = seq[t + 1];
        }
        // The digit tasks score only the answer: the first digits − 1 targets are −1.
        for (std::size_t t = 0; t + 1 < digits; ++t) y[t] = -1;
    }
}

// BOS, a prefix of p tokens, a block of L random tokens, the block again, and tokens to
// the end; L and p drawn per sequence, so no position predicts where the copy is. The
// tokens of the prefix and the end come from a chain: each is one of the `followers`
// tokens the table gives for the token two before it, so a head that reads the
// previous token pays off from the start. The block's tokens are uniform: only finding
// the current token's earlier occurrence and copying the token after it (an induction
// head) predicts the copy.
void train_task::fill_induction(prng& g, std::int32_t* x, std::int32_t* y) const {
    std::vector<std::int32_t> seq(seq_len + 1);  // [seq_len + 1]
    const auto L = static_cast<std::size_t>(
        g.uniform_int(static_cast<std::int64_t>(min_block), static_cast<std::int64_t>(block)));
    const auto p = static_cast<std::size_t>(g.uniform_int(0, static_cast<std::int64_t>(seq_len - 2 * L)));
    const auto V = static_cast<std::int64_t>(vocab_size), F = static_cast<std::int64_t>(followers);
    seq[0] = 0;
    for (std::size_t t = 1; t <= seq_len; ++t) {
        const bool in_block = t > p && t <= p + L, in_copy = t > p + L && t <= p + 2 * L;
        if (in_copy) seq[t] = seq[t - L];
        else if (in_block || t < 3) seq[t] = static_cast<std::int32_t>(g.uniform_int(1, V - 1));
        else seq[t] = follow[static_cast<std::size_t>(seq[t - 2]) * followers + static_cast<std::size_t>(g.uniform_int(0, F - 1))];
    }
    for (std::size_t t = 0; t < seq_len; ++t) {
        x[t] = seq[t];
        y[t] = seq[t + 1];
    }
}

void train_task::fill_line(const data_line& line, std::int32_t* x, std::int32_t* y) const {
    const auto& tok = line.tokens;
    for (std::size_t t = 0; t < seq_len; ++t) {
        x[t] = t < tok.size() ? tok[t] : 0;
        const bool scored = t + 1 < tok.size() && t + 1 >= line.score_from;
        y[t] = scored ? tok[t + 1] : -1;  // padding and context: no loss
    }
}

namespace {

// One line of --data: integers separated by spaces, tabs or commas; '#' to the end is a comment.
train_task::data_line parse_line(const std::string& path, int line_no, const std::string& line) {
    train_task::data_line out;
    bool bar = false;
    std::size_t i = 0;
    while (i < line.size()) {
        const char ch = line[i];
        if (ch == '#') break;
        if (ch == '|') {
            if (bar) throw io::input_error("syntax", {path, line_no, static_cast<int>(i) + 1}, "expected at most one '|' on a line, found a second");
            if (out.tokens.empty()) throw io::input_error("syntax", {path, line_no, static_cast<int>(i) + 1}, "expected a token before '|', found none");
            bar = true;
            out.score_from = out.tokens.size();
            ++i;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == ',' || ch == '\r') {
            ++i;
            continue;
        }
        const io::source_pos at{path, line_no, static_cast<int>(i) + 1};
        if (ch < '0' || ch > '9')
            throw io::input_error("syntax", at, "expected a token id (a non-negative integer), found '" +
                                                    std::string(1, ch >= 32 && ch < 127 ? ch : '?') + "'");
        std::int64_t v = 0;
        while (i < line.size() && line[i] >= '0' && line[i] <= '9') {
            v = v * 10 + (line[i] - '0');
            if (v >= 1000000)
                throw io::input_error("range", at, "expected a token id below 1000000, found 1000000 or more");
            ++i;
        }
        out.tokens.push_back(static_cast<std::int32_t>(v));
    }
    return out;
}

}  // namespace

train_task load_data_task(const std::string& path) {
    io::input_limits limits;
    limits.what = "data file";
    const std::string text = io::read_input_file(path, limits);
    train_task t;
    t.name = path;
    std::size_t start = 0;
    int line_no = 0;
    std::int32_t max_token = -1;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        ++line_no;
        auto line = parse_line(path, line_no, text.substr(start, end - start));
        start = end + 1;
        const auto& seq = line.tokens;
        if (seq.empty()) continue;
        if (line.score_from >= seq.size())
            throw io::input_error("syntax", {path, line_no, 1}, "expected tokens after '|', found none");
        if (seq.size() < 2)
            throw io::input_error("syntax", {path, line_no, 1}, "expected at least 2 tokens on a line, found 1");
        if (seq.size() > 1024)
            throw io::input_error("range", {path, line_no, 1}, "expected at most 1024 tokens on a line, found " +
                                                                   std::to_string(seq.size()));
        for (auto v : seq) max_token = std::max(max_token, v);
        t.seq_len = std::max(t.seq_len, seq.size() - 1);
        t.lines.push_back(std::move(line));
    }
    if (t.lines.empty()) throw io::input_error("empty", {path, 0, 0}, "expected lines of token ids, found none");
    t.vocab_size = static_cast<std::size_t>(max_token) + 1;
    t.model = default_model(2, 4, 64, t.vocab_size, t.seq_len, true, false);
    return t;
}

}  // namespace attn::model
