// cli/model_train.cpp — `attn model train TASK --out CKPT [--iters N] [--batch B]
// [--seed S] [--threads T] [--lr X] [--layers L --heads H --d-model D] [--watch L.H]
// [--data FILE] …`: trains a small GPT on a task (model/tasks) with attn's own backward
// and AdamW (model/train), showing progress, and writes a safetensors checkpoint in
// minGPT's naming (model/checkpoint) that `attn model run/heads` and PyTorch read.
// Ctrl-C stops within a layer (model/stop_request), drops the step under way and saves
// the checkpoint so far (exit 130).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/layout.hpp"
#include "cli/model_budget.hpp"
#include "cli/model_load.hpp"
#include "cli/model_train_view.hpp"
#include "core/error.hpp"
#include "cli/model_verbs.hpp"
#include "cli/verbs.hpp"
#include "io/output_writer.hpp"
#include "io/temp_registry.hpp"
#include "io/terminal_safe.hpp"
#include "model/checkpoint.hpp"
#include "model/file_error.hpp"
#include "model/gguf.hpp"
#include "model/gguf_checkpoint.hpp"
#include "model/init.hpp"
#include "model/memory.hpp"
#include "model/stop_request.hpp"
#include "model/train.hpp"
#include "model/train_record.hpp"
#include "trace/heatmap.hpp"
#include "trace/text_width.hpp"

namespace attn::cli {

namespace {

struct train_cli {
    std::string task, out, data, init, watch, dtype = "float32", losses, grads, keep_steps, arch = "gpt2";
    std::optional<std::size_t> iters, batch, layers, heads, d_model, kv_heads;
    std::optional<std::size_t> digits, base;  // sort, reverse, copy: the input's length and its digits 0 … base − 1
    std::uint64_t seed = 1;
    unsigned threads = 1;
    std::optional<double> lr;
    double weight_decay = 0.1, clip = 1.0;
    std::size_t warmup = 0, every = 0;
    std::size_t width = 0;  // --width: the watch view and the messages fitted to it (0: 80 for the view)
    bool cosine = false, sequential = false;
};

extern "C" void on_train_stop(int) { model::request_stop(); }

// Ctrl-C (and SIGTERM) ask the run to stop: the forward or backward under way ends at its
// next layer (model/stop_request), the step is dropped, the checkpoint so far is written.
void install_stop_handlers() {
    io::ensure_temp_cleanup_handlers();  // first, so no later output's temp file replaces these
    for (int sig : {SIGINT, SIGTERM}) {
        struct sigaction sa {};
        sa.sa_handler = on_train_stop;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, nullptr);
    }
}

struct head_ref {
    std::size_t layer = 0, head = 0;
};

head_ref parse_watch(const std::string& s, const model::architecture& c) {
    const auto dot = s.find('.');
    const auto number = [&](const std::string& part) -> std::size_t {
        if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos)
            throw attn::error(attn::source_pos{"--watch"}, "expected LAYER.HEAD like 1.0, found '" + s + "'");
        return std::stoul(part);
    };
    if (dot == std::string::npos) throw attn::error(attn::source_pos{"--watch"}, "expected LAYER.HEAD like 1.0, found '" + s + "'");
    head_ref h{number(s.substr(0, dot)), number(s.substr(dot + 1))};
    if (h.layer >= c.n_layer || h.head >= c.n_head)
        throw attn::error(attn::source_pos{"--watch"}, fmt::format("the model has layers 0 … {} and heads 0 … {}, asked for {}",
                                                          c.n_layer - 1, c.n_head - 1, s));
    return h;
}

// The task's model in the family asked for (--arch: its row of model/architecture), with
// the sizes asked for on the command line.
model::architecture model_config(const train_cli& o, const model::train_task& task) {
    model::architecture c = task.model;
    if (o.arch != "gpt2") {  // the family's components, the task's sizes
        c = model::find_architecture(o.arch)->defaults;
        c.n_layer = task.model.n_layer, c.n_head = task.model.n_head, c.n_embd = task.model.n_embd;
        c.vocab_size = task.model.vocab_size, c.n_positions = task.model.n_positions;
    }
    if (o.kv_heads && o.arch == "gpt2")
        throw attn::error(attn::source_pos{"--kv-heads"}, "grouped-query attention needs --arch llama or qwen2");
    if (o.kv_heads) c.n_kv_head = *o.kv_heads;
    if (o.layers) c.n_layer = *o.layers;
    if (o.heads) c.n_head = *o.heads;
    if (o.d_model) c.n_embd = *o.d_model;
    if (c.n_layer < 1 || c.n_layer > 48) throw attn::error(attn::source_pos{"--layers"}, "expected 1 … 48 layers");
    if (c.n_head < 1 || c.n_head > 64) throw attn::error(attn::source_pos{"--heads"}, "expected 1 … 64 heads");
    if (c.n_embd < 1 || c.n_embd > 2048) throw attn::error(attn::source_pos{"--d-model"}, "expected a width of 1 … 2048");
    if (c.n_embd % c.n_head != 0)
        throw attn::error(attn::source_pos{"--d-model"}, fmt::format("d_model {} is not a multiple of the {} heads", c.n_embd, c.n_head));
    if (c.n_kv_head != 0 && (c.n_kv_head > c.n_head || c.n_head % c.n_kv_head != 0))
        throw attn::error(attn::source_pos{"--kv-heads"},
                          fmt::format("{} heads do not split into groups of {} key/value heads", c.n_head, c.n_kv_head));
    if (c.positions == model::position_kind::rotary && c.d_head() % 2 != 0)
        throw attn::error(attn::source_pos{"--d-model"},
                          fmt::format("rotary positions turn pairs of columns: d_head = {} / {} = {} is odd", c.n_embd,
                                      c.n_head, c.d_head()));
    return c;
}

// A hyperparameter as a message shows it: never "nan" or "inf".
std::string shown_number(double v) {
    if (std::isnan(v)) return "a value that is not a number";
    if (std::isinf(v)) return v > 0 ? "infinity" : "minus infinity";
    return fmt::format("{}", v);
}

model::adamw_config optim_config(const train_cli& o, const model::train_task& task, std::size_t iters) {
    model::adamw_config a;
    // The Llama family on the digit tasks: twice the rate, decayed along a cosine (measured:
    // sort at 5e-4 constant sorts 985 of 1,000; at 1e-3 with the cosine, 1,000).
    const bool llama_digits = o.arch != "gpt2" && task.digits != 0;
    a.lr = o.lr.value_or(llama_digits ? 2 * task.lr : task.lr);
    if (!(a.lr > 0 && a.lr < 10)) throw attn::error(attn::source_pos{"--lr"}, "expected a learning rate in (0, 10)");
    // NaN passes CLI11's Range (every comparison is false): refused here, by name.
    if (!(o.weight_decay >= 0 && o.weight_decay <= 1))
        throw attn::error(attn::source_pos{"--weight-decay"}, "expected a number in [0, 1], found " + shown_number(o.weight_decay));
    if (!(o.clip >= 0 && o.clip <= 1e6))
        throw attn::error(attn::source_pos{"--clip"}, "expected a number in [0, 1000000], found " + shown_number(o.clip));
    a.weight_decay = o.weight_decay;
    a.clip = o.clip;
    a.warmup = o.warmup;
    a.cosine = o.cosine || task.cosine || llama_digits;
    a.total_steps = iters;
    a.min_lr = a.lr / 10;  // nanoGPT's floor for the cosine decay
    return a;
}

// The first sequence of a fixed batch (seed 0 of the task) whose pattern --watch draws.
struct probe_batch {
    std::vector<std::int32_t> tokens, targets;
};
probe_batch make_probe(const model::train_task& task) {
    probe_batch p{std::vector<std::int32_t>(task.seq_len), std::vector<std::int32_t>(task.seq_len)};
    prng g(0);
    if (task.lines.empty()) task.fill_batch(g, p.tokens.data(), p.targets.data(), 1);
    else task.fill_line(task.lines.front(), p.tokens.data(), p.targets.data());
    return p;
}

template <class T>
std::string watch_view(model::trainer<T>& tr, const probe_batch& probe, head_ref h, const std::vector<double>& losses,
                       watch_area area) {
    const auto& acts = tr.probe(probe.tokens, probe.targets, 1, nullptr);
    const std::size_t n = probe.tokens.size(), H = tr.params().config.n_head;
    matrix m({n, n});
    bool_matrix attend({n, n});
    const T* pat = acts.blocks[h.layer].pattern.data() + h.head * n * n;  // [n, n] of batch row 0
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < n; ++i) {
        labels.push_back(std::to_string(probe.tokens[i]));
        for (std::size_t j = 0; j < n; ++j) {
            m(i, j) = static_cast<double>(pat[i * n + j]);
            attend(i, j) = j <= i;
        }
    }
    (void)H;
    trace::heatmap_input in;
    in.title = fmt::format("layer {} head {} at step {}", h.layer, h.head, tr.steps_done());
    in.row_labels = labels;
    in.col_labels = labels;
    in.values = &m;
    in.attend = &attend;
    in.unit_range = true;
    return watch_frame(in, losses, area);
}

// A message fitted to --width (unchanged without it).
std::string fitted(const std::string& text, std::size_t width) { return width ? trace::fit_lines(text, width) : text; }

std::size_t count_lines(const std::string& s) {
    std::size_t n = 0;
    for (char c : s) n += c == '\n';
    return n;
}

// The folder an output goes into must exist and be writable (checked before training,
// not after it has run).
void check_folder(const std::string& path) {
    const auto folder = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
        throw attn::error("cannot write " + io::terminal_safe(path) + ": the folder " + io::terminal_safe(folder.string()) +
                          " does not exist");
    const std::string dir = folder.empty() ? std::string(".") : folder.string();
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw attn::error("cannot write " + io::terminal_safe(path) + ": the folder " + io::terminal_safe(dir) +
                          " is not writable (" + std::strerror(errno) + ")");
}

// Every output of the run under its own name: the checkpoint, --losses, --grads and
// each kept step. Two flags naming one file would leave only the last written.
void check_distinct(const std::vector<std::pair<std::string, std::string>>& outputs) {
    std::map<std::string, std::string> seen;  // normalised path → the flag that names it
    for (const auto& [flag, path] : outputs) {
        std::error_code ec;
        std::string key = std::filesystem::weakly_canonical(path, ec).string();
        if (ec) key = std::filesystem::absolute(path, ec).lexically_normal().string();
        const auto [it, fresh] = seen.emplace(key, flag);
        if (!fresh)
            throw attn::error(attn::source_pos{flag}, io::terminal_safe(path) + " is also the file of " + it->second +
                                                          ": every output of a run needs its own name");
    }
}

template <class T>
model::model_params<T> initial_params(const train_cli& o, const model::train_task& task) {
    if (o.init.empty()) return model::init_params<T>(model_config(o, task), model::init_seed(o.seed));
    auto p = model::read_checkpoint<T>(o.init);
    if (p.config.vocab_size < task.vocab_size || p.config.n_positions < task.seq_len)
        throw attn::error(fmt::format(
            "{}: the model has {} tokens and {} positions; the task needs {} tokens and {} positions", o.init,
            p.config.vocab_size, p.config.n_positions, task.vocab_size, task.seq_len));
    return p;
}

// An --init checkpoint whose rotary frequencies are rescaled (config.json's rope_scaling
// llama3 or linear, GGUF's rope.scaling or rope_freqs.weight) is refused from its header,
// before any work: the checkpoint a run writes has no words for the rescaling, so the
// trained model could only be written wrong (model/checkpoint_llama_tensors refuses it
// after the whole run otherwise).
void check_init_scaling(const std::string& path, const model::architecture& c) {
    if (c.rope_frequencies.empty()) return;
    throw attn::error(fmt::format("--init {}: its rotary frequencies are rescaled ({}); attn model train writes checkpoints "
                                  "without rope_scaling, so the trained model would lose it: training a rescaled model is "
                                  "not supported (start from an unscaled checkpoint)",
                                  io::terminal_safe(path), io::terminal_safe(c.rope_scaling)));
}

// What --init takes, in a refusal's words.
constexpr const char* init_accepts =
    "--init takes one .safetensors checkpoint: one written by attn model train, a GPT-2 (Hugging Face) or minGPT/nanoGPT "
    "file, or a Hugging Face Llama, Mistral or Qwen2 model.safetensors with its config.json beside it";

// A folder or a GGUF --init is refused by name (a GGUF's rescaled rotary frequencies are
// named first, as for every --init): training starts from safetensors only, and a GGUF
// would otherwise reach the safetensors reader's "not a safetensors file?".
void check_init_kind(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw attn::error(attn::source_pos{path}, fmt::format("a folder; {}: give the folder's model.safetensors",
                                                              init_accepts));
    if (!model::is_gguf_file(path)) return;
    check_init_scaling(path, model::read_gguf_config(path));
    throw model::file_error("unsupported", path, 0,
                            fmt::format("a GGUF file (it starts with \"GGUF\"); {} (or leave --init out: fresh weights)",
                                        init_accepts));
}

// What the run will hold, from the config alone (the --init checkpoint's header), charged
// to the budget: a step of --batch 65536 at d_model 2048 is refused, not swapped.
void charge_training(const train_cli& o, const model::train_task& task, std::size_t batch) {
    if (!o.init.empty()) check_init_kind(o.init);
    const model::architecture c = o.init.empty() ? model_config(o, task) : model::read_checkpoint_config(o.init);
    if (!o.init.empty()) check_init_scaling(o.init, c);
    charge_numbers(model::training_numbers(c, batch, task.seq_len),
                   fmt::format("training batches of {} × {} tokens on {} layers × {} heads, d_model {}, vocabulary {} "
                               "(parameters, gradients, AdamW's moments, every stage of a forward and its backward; "
                               "lower --batch, --layers or --d-model)",
                               batch, task.seq_len, c.n_layer, c.n_head, c.n_embd, c.vocab_size));
}

// What the checkpoint records beside the weights: the run, and its losses so far
// (model/train_record).
std::map<std::string, std::string> run_metadata(const train_cli& o, const model::train_task& task, std::size_t steps,
                                                std::size_t batch, const std::vector<double>& losses, std::size_t iters) {
    const std::size_t every = model::loss_every_for(iters);
    return {{"attn.task", o.data.empty() ? task.name : std::string("data")},
            {"attn.seed", std::to_string(o.seed)},
            {"attn.steps", std::to_string(steps)},
            {"attn.batch", std::to_string(batch)},
            {"attn.dtype", o.dtype},
            {"attn.losses_every", std::to_string(every)},
            {"attn.losses", model::encode_losses(losses, every)}};
}

// --keep-steps: the steps whose weights get a file of their own, checked before training.
std::vector<std::size_t> keep_steps(const train_cli& o, std::size_t iters, io::output_writer& writer) {
    if (o.keep_steps.empty()) return {};
    // A bad list is an attn::error naming --keep-steps (exit 2), raised before any training.
    const std::vector<std::size_t> steps = model::parse_step_list(o.keep_steps, iters);
    for (const auto s : steps) writer.check_file(model::kept_step_path(o.out, s));
    return steps;
}

template <class T>
int train_loop(const train_cli& o, const model::train_task& task) {
    model::train_options to;
    to.iters = o.iters.value_or(task.iters);
    to.batch = o.batch.value_or(64);
    to.seed = o.seed;
    to.sequential = o.sequential;
    to.optim = optim_config(o, task, to.iters);
    charge_training(o, task, to.batch);  // before any parameter or buffer is allocated
    auto initial = initial_params<T>(o, task);
    std::optional<head_ref> watch;
    if (!o.watch.empty()) watch = parse_watch(o.watch, initial.config);
    io::output_writer writer;
    check_folder(o.out);  // a bad --out fails now, not after the training
    writer.check_file(o.out);
    for (const auto* extra : {&o.losses, &o.grads})
        if (!extra->empty()) check_folder(*extra), writer.check_file(*extra);
    const std::vector<std::size_t> keep = keep_steps(o, to.iters, writer);
    std::vector<std::pair<std::string, std::string>> outputs{{"--out", o.out}};
    if (!o.losses.empty()) outputs.emplace_back("--losses", o.losses);
    if (!o.grads.empty()) outputs.emplace_back("--grads", o.grads);
    for (const auto s : keep) outputs.emplace_back("--keep-steps", model::kept_step_path(o.out, s));
    check_distinct(outputs);
    std::vector<std::size_t> kept;  // the kept steps written so far

    model::trainer<T> tr(task, to, std::move(initial));
    const probe_batch probe = make_probe(task);
    const bool tty = isatty(STDERR_FILENO) == 1;
    const std::size_t every = o.every > 0 ? o.every : (tty ? 10 : std::max<std::size_t>(1, to.iters / 20));
    std::vector<double> losses;
    losses.reserve(to.iters);
    const auto keep_now = [&] {
        const std::size_t s = tr.steps_done();
        if (!std::binary_search(keep.begin(), keep.end(), s)) return;
        model::write_checkpoint<T>(model::kept_step_path(o.out, s), tr.params(),
                                   run_metadata(o, task, s, to.batch, losses, to.iters));
        kept.push_back(s);
    };
    keep_now();  // step 0: the initial weights
    std::size_t drawn = 0;  // lines of the last watch view, to redraw over it
    install_stop_handlers();
    const auto start = std::chrono::steady_clock::now();
    while (tr.steps_done() < to.iters && !model::stop_requested()) {
        try {
            losses.push_back(tr.forward_backward());
        } catch (const model::stopped&) {
            break;  // the step under way is dropped: the parameters are those after the last update
        }
        if (!std::isfinite(losses.back()))  // a checkpoint of NaN weights would only be refused when read
            throw attn::error(fmt::format("the loss is no longer a finite number at step {} (too high a learning rate, "
                                          "or a starting checkpoint that overflows); nothing was written to {}",
                                          tr.steps_done() + 1, io::terminal_safe(o.out)));
        if (tr.steps_done() == 0 && !o.grads.empty())  // the first step's gradients, before clipping
            model::write_checkpoint<T>(o.grads, tr.grads(), {{"attn.content", "gradients of step 1"}});
        {
            const model::stop_deferred whole;  // a Ctrl-C now waits for the update to end (never half the weights)
            tr.update();
        }
        keep_now();
        const std::size_t s = tr.steps_done();
        if (s % every != 0 && s != to.iters) continue;
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::string line = fitted(progress_text(s, to.iters, losses.back(), secs > 0 ? static_cast<double>(s) / secs : 0), o.width);
        std::string frame;
        try {
            if (watch) frame = watch_view(tr, probe, *watch, losses, watch_area_for(o.width));
        } catch (const model::stopped&) {
            break;  // stopped during the probe's forward: the step itself is whole
        }
        if (tty) {
            if (drawn > 0) std::cerr << "\x1b[" << drawn << "A\x1b[J";
            std::cerr << frame << "\r\x1b[K" << line << (s == to.iters ? "\n" : "") << std::flush;
            drawn = count_lines(frame);
        } else {
            std::cerr << frame << line << "\n";
        }
    }
    const bool stopped = tr.steps_done() < to.iters;
    if (tty && stopped) std::cerr << "\n";
    auto meta = run_metadata(o, task, tr.steps_done(), to.batch, losses, to.iters);
    if (!keep.empty()) meta["attn.kept_steps"] = model::encode_steps(kept);
    model::write_checkpoint<T>(o.out, tr.params(), meta);
    if (!o.losses.empty()) {
        std::string csv = "step,loss\n";
        for (std::size_t i = 0; i < losses.size(); ++i) csv += fmt::format("{},{:.17g}\n", i + 1, losses[i]);
        writer.write_file(o.losses, csv);
    }
    if (stopped) {
        std::cerr << fitted(fmt::format("attn model train: stopped at step {} of {}; the checkpoint so far is in {}\n",
                                        tr.steps_done(), to.iters, io::terminal_safe(o.out)), o.width);
        return 130;
    }
    std::cerr << fitted(fmt::format("attn model train: wrote {} ({} steps, final loss {:.4f})\n", io::terminal_safe(o.out),
                                    tr.steps_done(),
                                    losses.empty() ? 0.0 : losses.back()), o.width);
    return 0;
}

// The task asked for: a built-in one (sort, reverse, copy with their --digits and --base)
// or --data's file.
model::train_task task_asked(const train_cli& o) {
    if (!o.data.empty()) {
        if (o.digits || o.base)
            throw attn::error(attn::source_pos{o.digits ? "--digits" : "--base"},
                              "the sequences of --data FILE are the file's: --digits and --base are for sort, reverse and copy");
        return model::load_data_task(o.data);
    }
    if (!o.digits && !o.base) return model::make_task(o.task);
    const char* option = o.digits ? "--digits" : "--base";
    if (o.task == "induction")
        throw attn::error(attn::source_pos{option}, "the induction task has no digits to set: --digits and --base are for sort, "
                                                     "reverse and copy");
    if (o.digits && (*o.digits < 1 || *o.digits > model::max_task_digits))
        throw attn::error(attn::source_pos{"--digits"},
                          fmt::format("expected 1 … {} digits, found {}", model::max_task_digits, *o.digits));
    if (o.base && (*o.base < 2 || *o.base > model::max_task_base))
        throw attn::error(attn::source_pos{"--base"},
                          fmt::format("expected a base of 2 … {} (digits 0 … base − 1), found {}", model::max_task_base, *o.base));
    const model::train_task defaults = model::make_task(o.task);
    return model::make_digits_task(o.task, o.digits.value_or(defaults.digits), o.base.value_or(defaults.vocab_size));
}

void run_model_train(const train_cli& o) {
    if (o.task.empty() == o.data.empty())
        throw attn::error(attn::source_pos{"TASK"}, "give a task (sort, reverse, copy, induction) or --data FILE, not both");
    const model::train_task task = task_asked(o);
    model::set_train_threads(o.threads);
    const int code = o.dtype == "float64" ? train_loop<double>(o, task) : train_loop<float>(o, task);
    if (code != 0) throw exit_request{code};
}

void setup_model_train(CLI::App& model) {
    auto o = std::make_shared<train_cli>();
    auto* sub = model.add_subcommand(
        "train", "Train a small GPT or Llama-family model on a task (sort, reverse, copy, induction) or your own token sequences");
    sub->add_option("TASK", o->task, "sort | reverse | copy | induction (or give --data FILE)")
        ->check(CLI::IsMember({"sort", "reverse", "copy", "induction"}));
    sub->add_option("--out", o->out, "The checkpoint to write (safetensors: minGPT naming; --arch llama: Hugging Face Llama naming)")->required();
    sub->add_option("--data", o->data, "Train on FILE's token sequences (one per line; '|' starts the scored part)");
    sub->add_option("--digits", o->digits, "sort, reverse, copy: digits in each input (default 6; minGPT's length)");
    sub->add_option("--base", o->base, "sort, reverse, copy: the digits run from 0 to B - 1 (default 3; minGPT's num_digits)")
        ->type_name("B");
    sub->add_option("--iters", o->iters, "Training steps (default 2000; induction: 8000)")->check(CLI::Range(1, 10000000));
    sub->add_option("--batch", o->batch, "Sequences per step (default 64)")->check(CLI::Range(1, 65536));
    add_seed_option(*sub, o->seed, "Seed of the initial weights and the batches (default 1)");
    sub->add_option("--threads", o->threads, "Threads for the matrix products (the result is the same for any)")
        ->check(CLI::Range(1, 256));
    sub->add_option("--lr", o->lr, "Learning rate of AdamW (default 5e-4; induction: 2e-3; --arch llama/qwen2 on sort, reverse, copy: 1e-3 with --cosine)");
    sub->add_option("--weight-decay", o->weight_decay, "AdamW's weight decay, linear weights only (default 0.1)")
        ->check(CLI::Range(0.0, 1.0));
    sub->add_option("--clip", o->clip, "Clip the gradients to this global norm; 0: no clipping (default 1.0)")
        ->check(CLI::Range(0.0, 1e6));
    sub->add_option("--warmup", o->warmup, "Raise the learning rate linearly over the first N steps");
    sub->add_flag("--cosine", o->cosine, "Decay the learning rate to a tenth of it along a cosine (induction: always)");
    sub->add_option("--layers", o->layers, "Blocks of the model (sort: 3, induction: 2)");
    sub->add_option("--heads", o->heads, "Attention heads per block (sort: 3, induction: 1)");
    sub->add_option("--d-model", o->d_model, "Width of the residual stream (sort: 48, induction: 64)");
    sub->add_option("--arch", o->arch, "The model's family: gpt2 (default), llama or qwen2 (RMSNorm, rotary, SwiGLU)")
        ->check(CLI::IsMember({"gpt2", "llama", "qwen2"}));
    sub->add_option("--kv-heads", o->kv_heads, "Key/value heads (llama, qwen2: grouped-query attention; default: --heads)")
        ->check(CLI::Range(1, 64));
    sub->add_option("--dtype", o->dtype, "float32 (default, faster) or float64")
        ->check(CLI::IsMember({"float32", "float64"}));
    sub->add_option("--init", o->init, "Start from this checkpoint's weights instead of fresh ones");
    add_budget_option(*sub);
    sub->add_flag("--sequential", o->sequential, "With --data: take the lines in order, a batch after another");
    sub->add_option("--watch", o->watch, "Draw head L.H's pattern beside the loss curve as it trains (e.g. 1.0)");
    sub->add_option("--every", o->every, "Redraw every N steps (default: 10 on a terminal, else a twentieth)");
    sub->add_option("--losses", o->losses, "Write every step's loss to FILE (CSV: step,loss)");
    sub->add_option("--keep-steps", o->keep_steps,
                    "Also write the weights at these steps (e.g. 0,100,500,2000) as CKPT.stepN")
        ->type_name("LIST");
    sub->add_option("--grads", o->grads, "Write the first step's gradients (before clipping) to FILE (safetensors)");
    add_width_option(*sub, o->width);
    sub->callback([o] { run_model_train(*o); });
}

const bool model_train_registered = register_model_verb({"train", 50, setup_model_train});

}  // namespace

}  // namespace attn::cli
