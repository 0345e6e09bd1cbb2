// cli/model_patch.cpp — `attn model patch CKPT (--clean TEXT --corrupt TEXT --tokenizer …
// | --clean-tokens … --corrupt-tokens …) --metric logit-diff:A,B|loss[:FROM]|prob:TOKEN
// [--json FILE|-]`: activation patching and ablation (model/patching.hpp) — the clean and
// corrupted baselines, then the metric's change when each head's output (hook_z) or each
// layer's residual stream at each position (hook_resid_pre) is patched from the clean run
// into the corrupted one, and when each head is zero- or mean-ablated on the clean run.
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/layout.hpp"
#include "cli/model_budget.hpp"
#include "cli/model_stop.hpp"
#include "cli/model_load.hpp"
#include "cli/model_verbs.hpp"
#include "core/error.hpp"
#include "io/output_writer.hpp"
#include "io/terminal_safe.hpp"
#include "core/types.hpp"
#include "model/patching.hpp"
#include "trace/heatmap.hpp"
#include "trace/number_format.hpp"
#include "trace/table.hpp"

namespace attn::cli {

namespace {

struct patch_options {
    std::string checkpoint, clean, corrupt, clean_tokens, corrupt_tokens, tokenizer, metric, json, dtype = "auto";
    layout_options layout;
};

// "logit-diff:A,B", "loss", "loss:FROM", "prob:TOKEN".
model::patch_metric parse_metric(const std::string& text, const token_input& in, std::size_t vocab) {
    model::patch_metric m;
    const std::size_t colon = text.find(':');
    const std::string kind = text.substr(0, colon), arg = colon == std::string::npos ? "" : text.substr(colon + 1);
    if (kind == "logit-diff" && arg.find(',') != std::string::npos) {
        m.kind = model::metric_kind::logit_diff;
        m.a = token_id(in, arg.substr(0, arg.find(',')), "--metric logit-diff", vocab);
        m.b = token_id(in, arg.substr(arg.find(',') + 1), "--metric logit-diff", vocab);
    } else if (kind == "prob" && !arg.empty()) {
        m.kind = model::metric_kind::prob;
        m.a = token_id(in, arg, "--metric prob", vocab);
    } else if (kind == "loss" && (colon == std::string::npos || (!arg.empty() && arg.size() < 10 &&
                                                                 arg.find_first_not_of("0123456789") == std::string::npos))) {
        m.kind = model::metric_kind::loss;
        m.from = arg.empty() ? 0 : std::stoul(arg);
    } else {
        throw attn::error("--metric '" + io::terminal_safe(text) + "': expected logit-diff:A,B, loss, loss:FROM or prob:TOKEN");
    }
    return m;
}

std::string metric_words(const model::patch_metric& m, const token_input& in) {
    switch (m.kind) {
        case model::metric_kind::logit_diff:
            return fmt::format("logit of {} minus logit of {} at the last position", in.label(m.a), in.label(m.b));
        case model::metric_kind::prob: return fmt::format("probability of {} at the last position", in.label(m.a));
        case model::metric_kind::loss: break;
    }
    return fmt::format("mean loss of the clean text's next tokens, predicted from position {} on", m.from);
}

// A [rows × cols] grid of effects (value − base) as a table.
std::string effect_table(const std::string& title, const std::vector<std::vector<double>>& values, double base,
                         const std::vector<std::string>& cols, const trace::style& st) {
    trace::table t;
    t.title = title;
    t.corner = "layer";
    t.col_labels = cols;
    for (std::size_t l = 0; l < values.size(); ++l) {
        t.row_labels.push_back(std::to_string(l));
        t.cells.emplace_back();
        for (double v : values[l]) t.cells.back().push_back(trace::signed_fixed(v - base, 4));
    }
    t.shape = fmt::format("[{} × {}]", values.size(), cols.size());
    return trace::render(t, st);
}

// The cell that moves the metric most, in words.
std::string largest_words(const std::vector<std::vector<double>>& values, double base, const std::string& what) {
    std::size_t bl = 0, bc = 0;
    for (std::size_t l = 0; l < values.size(); ++l)
        for (std::size_t c = 0; c < values[l].size(); ++c)
            if (std::abs(values[l][c] - base) > std::abs(values[bl][bc] - base)) bl = l, bc = c;
    return fmt::format("Moves it most: layer {} {} {} ({}).\n", bl, what, bc, trace::signed_fixed(values[bl][bc] - base, 4));
}

// A grid of effects as a heatmap (rows: layers, columns: heads or positions by number).
std::string effect_map(const std::string& title, const std::string& columns, const std::vector<std::vector<double>>& values,
                       double base, const trace::style& st) {
    const std::size_t P = values.front().size(), needed = 4 * P + 2 + std::to_string(values.size()).size();
    if (needed > st.width)  // a cell is 3 characters and a space: the map would wrap
        return fmt::format("(The heatmap of this table needs --width {} or more.)\n", needed);
    std::vector<std::string> rows, cols;  // by number: narrow columns
    for (std::size_t c = 0; c < P; ++c) cols.push_back(std::to_string(c));
    matrix m = matrix::from_shape({values.size(), P});  // [layers, heads or positions]
    for (std::size_t l = 0; l < values.size(); ++l) {
        rows.push_back(std::to_string(l));
        for (std::size_t c = 0; c < P; ++c) m(l, c) = values[l][c] - base;
    }
    trace::heatmap_input hi;
    hi.title = title;
    hi.row_labels = rows;
    hi.col_labels = cols;
    hi.values = &m;
    hi.axes = "rows: layers · columns: " + columns + ", from 0";
    hi.width = st.width;
    return trace::render_heatmap(hi, trace::heatmap_style_for(st.color));
}

std::string patch_grid_json(const std::vector<std::vector<double>>& g) {
    std::string s = "[";
    for (std::size_t i = 0; i < g.size(); ++i) {
        s += i ? ", [" : "[";
        for (std::size_t j = 0; j < g[i].size(); ++j) s += fmt::format("{}{:.17g}", j ? ", " : "", g[i][j]);
        s += "]";
    }
    return s + "]";
}

// The metric as data: {"kind": "logit-diff", "a": 5, "b": 2} (token ids), {"kind": "loss", "from": 0}.
std::string metric_json(const model::patch_metric& m) {
    switch (m.kind) {
        case model::metric_kind::logit_diff: return fmt::format("{{\"kind\": \"logit-diff\", \"a\": {}, \"b\": {}}}", m.a, m.b);
        case model::metric_kind::prob: return fmt::format("{{\"kind\": \"prob\", \"token\": {}}}", m.a);
        case model::metric_kind::loss: break;
    }
    return fmt::format("{{\"kind\": \"loss\", \"from\": {}}}", m.from);
}

void write_json(const model::patching_result& r, const model::patch_metric& metric, const std::string& path) {
    io::staged_file out(path);
    out.write(fmt::format("{{\"metric\": {}, \"clean\": {:.17g}, \"corrupt\": {:.17g},\n\"head_patch\": {},\n\"resid_patch\": {},\n"
                          "\"zero_ablation\": {},\n\"mean_ablation\": {}}}\n",
                          metric_json(metric), r.clean, r.corrupt, patch_grid_json(r.head_patch), patch_grid_json(r.resid_patch),
                          patch_grid_json(r.zero_ablation), patch_grid_json(r.mean_ablation)));
    out.commit();
    if (!io::is_stdout(path)) std::cerr << "attn model patch: wrote " << io::terminal_safe(path) << "\n";
}

std::string baselines(const model::patching_result& r, const model::patch_metric& m, const token_input& clean) {
    return fmt::format("Metric: {}.\nClean run: {} · corrupted run: {}\n\n", metric_words(m, clean), trace::fixed(r.clean, 6),
                       trace::fixed(r.corrupt, 6));
}

template <class T>
void patch_with(const model::model_params<T>& p, const loaded_model& m, const token_input& clean, const token_input& corrupt,
                const patch_options& o) {
    const model::patch_metric metric = parse_metric(o.metric, clean, p.config.vocab_size);
    const model::patching_result r = model::run_patching(p, clean.ids[0], corrupt.ids[0], metric);
    if (!o.json.empty()) {
        write_json(r, metric, o.json);
        if (io::is_stdout(o.json)) return;
    }
    const trace::style st = make_style(o.layout);
    std::vector<std::string> heads;
    for (std::size_t h = 0; h < p.config.n_head; ++h) heads.push_back("head " + std::to_string(h));
    std::string out = "Model: " + model_summary(m) + "\nClean:    ";
    for (const auto& t : clean.labels[0]) out += " " + t;
    out += "\nCorrupted:";
    for (const auto& t : corrupt.labels[0]) out += " " + t;
    out += "\n" + baselines(r, metric, clean);
    out += effect_table("Patching each head's output (hook_z) from the clean run into the corrupted run: metric − corrupted",
                        r.head_patch, r.corrupt, heads, st) + largest_words(r.head_patch, r.corrupt, "head") + "\n";
    if (p.config.n_head > 1) out += effect_map("metric − corrupted, patching hook_z", "heads", r.head_patch, r.corrupt, st) + "\n";
    out += effect_table("Patching the residual stream (hook_resid_pre) at one position from the clean run into the corrupted "
                        "run: metric − corrupted", r.resid_patch, r.corrupt, clean.labels[0], st) +
           largest_words(r.resid_patch, r.corrupt, "position") + "\n" + effect_map("metric − corrupted, patching hook_resid_pre", "positions", r.resid_patch, r.corrupt, st) + "\n";
    out += effect_table("Zero-ablating each head (hook_z = 0) on the clean run: metric − clean", r.zero_ablation, r.clean, heads, st) +
           largest_words(r.zero_ablation, r.clean, "head") + "\n";
    out += effect_table("Mean-ablating each head (hook_z = its mean over the clean run's positions): metric − clean",
                        r.mean_ablation, r.clean, heads, st) + largest_words(r.mean_ablation, r.clean, "head");
    print_fitted(out, st);
}

token_input one_input(const std::string& tokens, const std::string& text, const std::string& flag, const patch_options& o) {
    if (tokens.empty() && text.empty()) throw attn::error("give " + flag + " TEXT (with --tokenizer) or " + flag + "-tokens 0,1,2");
    token_input in = read_tokens(tokens.empty() ? std::vector<std::string>{} : std::vector<std::string>{tokens}, text, o.tokenizer,
                                 o.checkpoint);
    return in;
}

void run_model_patch(const patch_options& o) {
    const token_input clean = one_input(o.clean_tokens, o.clean, "--clean", o);
    const token_input corrupt = one_input(o.corrupt_tokens, o.corrupt, "--corrupt", o);
    if (clean.ids[0].size() != corrupt.ids[0].size())
        throw attn::error(fmt::format("the clean input has {} tokens and the corrupted one {}: patching needs inputs of one token length",
                                      clean.ids[0].size(), corrupt.ids[0].size()));
    const loaded_model m = load_model(o.checkpoint, o.dtype);
    // the clean and corrupted runs, and one patched run at a time
    charge_forwards(m.config(), 3, clean.ids[0].size(), o.clean.empty() ? "--clean-tokens" : "--clean");
    with_params(m, [&](const auto& p) { patch_with(p, m, clean, corrupt, o); });
}

void setup_model_patch(CLI::App& model) {
    auto o = std::make_shared<patch_options>();
    auto* sub = model.add_subcommand("patch", "Find a circuit: patch each head's output and the residual stream at each position from a "
                                              "clean run into a corrupted one; zero and mean ablation of each head");
    sub->add_option("CKPT", o->checkpoint, "The checkpoint (.safetensors or .gguf; GPT-2 or Llama family), or a built-in model's name (attn model list)")->required();
    sub->add_option("--clean", o->clean, "The clean text (with --tokenizer)");
    sub->add_option("--corrupt", o->corrupt, "The corrupted text, of the same token length");
    sub->add_option("--clean-tokens", o->clean_tokens, "The clean input as token ids, comma-separated");
    sub->add_option("--corrupt-tokens", o->corrupt_tokens, "The corrupted input as token ids, comma-separated");
    sub->add_option("--tokenizer", o->tokenizer, "Tokenizer: a folder (tokenizer.json, or vocab.json + merges.txt), a tokenizer.json or a GGUF");
    sub->add_option("--metric", o->metric, "logit-diff:A,B (at the last position), loss (the clean next tokens' mean loss; loss:FROM "
                                           "from position FROM on) or prob:TOKEN; a token is its id (#17 or 17) or its text, "
                                           "refused when several tokens read so")->required();
    sub->add_option("--json", o->json, "Write the baselines and every patched metric as JSON to FILE, or '-' for stdout");
    add_dtype_option(*sub, o->dtype);
    add_budget_option(*sub);
    add_layout_options(*sub, o->layout);
    sub->callback([o] {
        stop_on_interrupt();  // Ctrl-C: within a second, exit 130 (cli/model_stop)
        run_model_patch(*o);
    });
}

}  // namespace

static const bool model_patch_registered = register_model_verb({"patch", 37, setup_model_patch});

}  // namespace attn::cli
