// cli/model_run.cpp — `attn model run CKPT (--tokens 0,1,2 [--tokens …] | --text "…"
// --tokenizer PATH) [--top K] [--layer L --head H [--batch B] [--query T] [--stage S]…]
// [--json FILE|-] [--npy DIR] [--dtype auto|float32|float64] [--threads N] [--width N] [--full]
// [--color …]`: a checkpoint's forward keeping the stages shown (model/traced_forward).
// Prints each sequence's greedy next token per position and the top-k next tokens;
// with --layer and --head, that head as `attn trace` shows a run (tables, heatmap, or
// --query's per-token walk-through). With --json/--npy, every stage to files instead.
// With --grad (and --layer/--head), the backward of the sequences' next-token loss
// (model/train_step, the trainer's own backward) and that head's gradient stages
// grad.blocks.L.attn.hook_pattern and grad.blocks.L.attn.hook_attn_scores as tables.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/layout.hpp"
#include "cli/model_budget.hpp"
#include "cli/model_stop.hpp"
#include "core/error.hpp"
#include "cli/model_load.hpp"
#include "cli/model_verbs.hpp"
#include "io/output_writer.hpp"
#include "io/terminal_safe.hpp"
#include "model/traced_forward.hpp"
#include "model/memory.hpp"
#include "model/train.hpp"
#include "model/train_step.hpp"
#include "trace/number_format.hpp"
#include "trace/table.hpp"
#include "trace/heatmap.hpp"
#include "trace/model_export.hpp"
#include "trace/model_head.hpp"
#include "trace/model_report.hpp"
#include "trace/trace_report.hpp"

namespace attn::cli {

namespace {

struct run_options {
    std::string checkpoint;
    std::vector<std::string> tokens;
    std::string text, tokenizer;
    std::size_t top = 5;
    int layer = -1, head = -1, batch = -1;
    std::string query;
    std::vector<std::string> stages;
    std::string json, npy;
    std::string dtype = "auto";
    unsigned threads = 0;  // 0: the machine's hardware threads
    bool grad = false;
    layout_options layout;
};

void check_choice(const run_options& o) {
    if ((o.layer >= 0) != (o.head >= 0)) throw attn::error("--layer and --head go together: give both to see one head");
    if (o.layer < 0 && (!o.query.empty() || !o.stages.empty() || o.grad))
        throw attn::error(std::string(o.grad ? "--grad" : o.query.empty() ? "--stage" : "--query") +
                          " shows a head: give --layer L --head H too");
    if (o.grad && (!o.json.empty() || !o.npy.empty())) throw attn::error("--grad prints tables: leave out --json and --npy");
}

template <class T>
void write_exports(const model::forward_acts<T>& a, const loaded_model& m, const token_input& in, const run_options& o) {
    trace::model_run_meta meta{m.info.layout, in.texts};
    std::unique_ptr<io::staged_directory> npy;
    std::unique_ptr<io::staged_file> json;
    if (!o.npy.empty()) {
        npy = std::make_unique<io::staged_directory>(o.npy);
        trace::write_model_npy(a, m.config(), *npy);
    }
    if (!o.json.empty() && !io::is_stdout(o.json)) {
        json = std::make_unique<io::staged_file>(o.json);
        trace::write_model_json(a, m.config(), meta, [&](const char* p, std::size_t n) { json->write(p, n); });
    }
    if (npy) npy->commit(), std::cerr << "attn model run: wrote " << npy->files() << " .npy files to " << io::terminal_safe(o.npy) << "\n";
    if (json) json->commit(), std::cerr << "attn model run: wrote " << io::terminal_safe(o.json) << "\n";
    if (io::is_stdout(o.json)) {  // last, after the files: standard output through the one writer
        io::staged_file out("-");
        trace::write_model_json(a, m.config(), meta, [&](const char* p, std::size_t n) { out.write(p, n); });
        out.commit();
    }
}

// One head as `attn trace` shows a run: stage tables and heatmap, or --query's walk-through.
template <class T>
std::string head_view(const model::forward_acts<T>& a, const loaded_model& m, const token_input& in, const run_options& o,
                      const trace::style& st) {
    trace::model_head_choice c;
    c.layer = static_cast<std::size_t>(o.layer);
    c.head = static_cast<std::size_t>(o.head);
    c.batch = o.batch >= 0 ? static_cast<std::size_t>(o.batch) : 0;
    if (c.batch < in.labels.size()) c.tokens = in.labels[c.batch];
    // Counted from 1 in words, as the lessons count; the options that chose it count from 0.
    c.title = fmt::format("layer {} of {}, head {} of {}", c.layer + 1, m.config().n_layer, c.head + 1, m.config().n_head);
    if (a.batch > 1) c.title += fmt::format(" · sequence {}", c.batch);
    const trace::trace_run run = trace::model_head_run(a, m.config(), c);
    trace::report_options ro;
    ro.st = st;
    ro.truecolor = trace::heatmap_style_for(st.color).truecolor;
    if (!o.query.empty()) ro.query = o.query;
    for (const auto& s : o.stages) {
        auto id = parse_head_stage(s);
        if (!id) throw attn::error("--stage '" + s + "': a model head has the stages " + stage_alias_list());
        ro.tables.push_back(*id);
    }
    std::string out = fmt::format("--layer {} --head {} count from 0, as the checkpoint's tensors do; the tables count "
                                  "from 1, as the lessons do: layer {}, head {}.\n\n",
                                  c.layer, c.head, c.layer + 1, c.head + 1);
    return out + trace::render_trace_report(run, ro);
}

// One [P, P] slice (sequence b, head h) of a [B, NH, P, P] gradient as a labelled table.
template <class T>
std::string grad_table(const std::vector<T>& g, const std::string& stage, std::size_t b, std::size_t h, std::size_t NH,
                       const std::vector<std::string>& labels, const trace::style& st) {
    const std::size_t P = labels.size();
    trace::table t;
    t.title = fmt::format("{} · head {} · dLoss/d{}", stage, h, stage.substr(stage.rfind('_') + 1));
    t.axes = "rows: queries · columns: keys";
    t.corner = "query \\ key";
    t.row_labels = t.col_labels = labels;
    const T* at = g.data() + ((b * NH + h) * P) * P;  // [P, P]
    for (std::size_t i = 0; i < P; ++i) {
        t.cells.emplace_back();
        for (std::size_t j = 0; j < P; ++j) t.cells.back().push_back(trace::fixed(static_cast<double>(at[i * P + j]), 6));
    }
    t.shape = fmt::format("[{} × {}]", P, P);
    return trace::render(t, st);
}

// --grad: the loss of predicting each next token (the last position has no target),
// its backward, and the head's gradient stages.
template <class T>
std::string grad_view(const model::model_params<T>& p, const token_input& in, const run_options& o, const trace::style& st) {
    const std::size_t B = in.ids.size(), P = in.ids.front().size();
    for (const auto& row : in.ids)
        if (row.size() != P) throw attn::error("--grad needs sequences of one length: give --tokens rows of the same length");
    if (P < 2) throw attn::error("--grad needs at least 2 tokens: the loss predicts each next token");
    std::vector<std::int32_t> tokens(B * P), targets(B * P);  // [B, P]
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < P; ++i) {
            tokens[b * P + i] = static_cast<std::int32_t>(in.ids[b][i]);
            targets[b * P + i] = i + 1 < P ? static_cast<std::int32_t>(in.ids[b][i + 1]) : -1;
        }
    auto acts = model::make_train_acts<T>(p.config, B, P), grad_acts = model::make_train_acts<T>(p.config, B, P);
    model::model_params<T> grads = p;
    const double loss = model::train_forward(p, acts, tokens.data(), targets.data());
    model::train_backward(p, grads, acts, grad_acts, tokens.data(), targets.data());
    const std::size_t L = static_cast<std::size_t>(o.layer), h = static_cast<std::size_t>(o.head);
    const std::size_t b = o.batch >= 0 ? static_cast<std::size_t>(o.batch) : 0;
    const auto& g = grad_acts.blocks[L];
    const std::string stage = fmt::format("grad.blocks.{}.attn.", L);
    return fmt::format("Loss: mean cross-entropy of each next token over {} position{} = {}\n"
                       "Gradients: dLoss/d(stage), the backward `attn model train` runs.\n\n",
                       B * (P - 1), B * (P - 1) == 1 ? "" : "s", trace::fixed(loss, 6)) +
           grad_table(g.pattern, stage + "hook_pattern", b, h, p.config.n_head, in.labels[b], st) + "\n" +
           grad_table(g.scores, stage + "hook_attn_scores", b, h, p.config.n_head, in.labels[b], st);
}

// The stages the run shows: every one for --json/--npy, the head's block for --layer, else
// the predictions (logits and probs) only.
model::stage_request stages_shown(const run_options& o) {
    if (!o.json.empty() || !o.npy.empty()) return model::stage_request::all();
    if (o.layer >= 0 && !o.grad) return model::stage_request::block(static_cast<std::size_t>(o.layer));
    return model::stage_request::outputs();
}

template <class T>
void run_with(const model::model_params<T>& p, const loaded_model& m, const token_input& in, const run_options& o) {
    const model::forward_acts<T> a = model::trace_stages(p, in.ids, stages_shown(o));
    if (!o.json.empty() || !o.npy.empty()) {
        write_exports(a, m, in, o);
        return;
    }
    const trace::style st = make_style(o.layout);
    std::string out = "Model: " + model_summary(m) + "\n";
    for (std::size_t b = 0; b < in.labels.size(); ++b) {
        std::string line = a.batch > 1 ? fmt::format("Sequence {} ({} tokens):", b, a.n_pos) : fmt::format("Tokens ({}):", a.n_pos);
        for (const auto& t : in.labels[b]) line += " " + t;
        out += line + "\n";
    }
    out += "\n";
    if (o.grad) out += grad_view(p, in, o, st);
    else if (o.layer >= 0) out += head_view(a, m, in, o, st);
    else out += trace::render_predictions(a, [&](int id) { return in.label(id); }, o.top, st);
    print_fitted(out, st);
}

void run_model_run(const run_options& o) {
    check_choice(o);
    const token_input in = read_tokens(o.tokens, o.text, o.tokenizer, o.checkpoint);
    const loaded_model m = load_model(o.checkpoint, o.dtype);
    model::check_tokens(m.config(), in.ids);  // before any work: which sequence and token is wrong
    if (o.layer >= 0) {  // the head exists before the forward runs
        const auto& c = m.config();
        if (static_cast<std::size_t>(o.layer) >= c.n_layer)
            throw attn::error(fmt::format("--layer {} does not exist: the model has {} layers (0..{})", o.layer, c.n_layer, c.n_layer - 1));
        if (static_cast<std::size_t>(o.head) >= c.n_head)
            throw attn::error(fmt::format("--head {} does not exist: the model has {} heads (0..{})", o.head, c.n_head, c.n_head - 1));
        if (o.batch >= 0 && static_cast<std::size_t>(o.batch) >= in.ids.size())
            throw attn::error(fmt::format("--batch {} does not exist: {} sequence{} given (0..{})", o.batch, in.ids.size(),
                                                    in.ids.size() == 1 ? "" : "s", in.ids.size() - 1));
    }
    const char* input_flag = o.text.empty() ? "--tokens" : "--text";
    charge_traced_forward(m.config(), in.ids.size(), in.ids.front().size(), stages_shown(o), input_flag);
    if (o.grad)
        charge_numbers(model::gradient_numbers(m.config(), in.ids.size(), in.ids.front().size()),
                       "--grad's gradients (of every parameter and every stage)", input_flag);
    // The forward's passes split work in blocks fixed by the sizes: the same bytes on any count.
    model::set_train_threads(o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency()));
    with_params(m, [&](const auto& p) { run_with(p, m, in, o); });
}

void setup_model_run(CLI::App& model) {
    auto o = std::make_shared<run_options>();
    auto* sub = model.add_subcommand("run", "Run a GPT checkpoint on tokens or text: next-token predictions, one head traced, every stage exported");
    sub->add_option("CKPT", o->checkpoint, "The checkpoint (.safetensors; its config in __metadata__ or a config.json beside it), or a built-in model's name (attn model list)")->required();
    sub->add_option("--tokens", o->tokens, "Token ids of one sequence, comma-separated (repeatable: one batch row each)");
    sub->add_option("--text", o->text, "Text to run, tokenized with --tokenizer");
    sub->add_option("--tokenizer", o->tokenizer, "Tokenizer: a folder (tokenizer.json, or vocab.json + merges.txt), a tokenizer.json or a GGUF (default: a GGUF checkpoint's own, or a Hugging Face folder's tokenizer.json)");
    sub->add_option("--top", o->top, "How many next tokens to list (default 5)")->check(CLI::PositiveNumber);
    sub->add_option("--layer", o->layer, "Show this layer's head --head (counted from 0, as blocks.L)")->check(CLI::NonNegativeNumber);
    sub->add_option("--head", o->head, "The head of --layer to show (counted from 0)")->check(CLI::NonNegativeNumber);
    sub->add_option("--batch", o->batch, "With --layer/--head: the sequence (--tokens row) to show, from 0")->check(CLI::NonNegativeNumber);
    sub->add_option("--query", o->query, "With --layer/--head: per-token walk-through of this query (its token or 0-based position)");
    sub->add_option("--stage", o->stages, "With --layer/--head: print only these stage tables (repeatable)");
    sub->add_flag("--grad", o->grad, "With --layer/--head: the next-token loss's gradients of that head's pattern and scores");
    sub->add_option("--json", o->json, "Write every stage as JSON to FILE, or '-' for stdout");
    sub->add_option("--npy", o->npy, "Write one .npy per stage into DIR");
    add_dtype_option(*sub, o->dtype);
    sub->add_option("--threads", o->threads, "Threads for the forward (default: every hardware thread; the result is the same for any)")
        ->check(CLI::Range(1u, 256u));
    add_budget_option(*sub);
    add_layout_options(*sub, o->layout);
    sub->callback([o] {
        stop_on_interrupt();  // Ctrl-C: within a second, exit 130 (cli/model_stop)
        run_model_run(*o);
    });
}

}  // namespace

static const bool model_run_registered = register_model_verb({"run", 10, setup_model_run});

}  // namespace attn::cli
