// cli/model_info.cpp — `attn model info CKPT [--hooks [--positions P]]`: what a
// checkpoint holds — its layout, the dtype of its tensors, the config and where it came
// from, the parameter count, what the reader assumed; with --hooks every hook of its
// forward (model/hooks.hpp) with its shape. A GGUF file goes to cli/model_info_gguf.cpp.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/layout.hpp"
#include "cli/model_info_gguf.hpp"
#include "cli/model_load.hpp"
#include "cli/model_verbs.hpp"
#include "core/error.hpp"
#include "io/terminal_safe.hpp"
#include "model/gguf.hpp"
#include "model/hooks.hpp"
#include "trace/model_report.hpp"
#include "trace/number_format.hpp"

namespace attn::cli {

namespace {

struct info_options {
    std::string checkpoint;
    bool hooks = false;
    std::size_t positions = 0;  // 0: the model's n_positions
    std::string tensor, json;   // GGUF only (cli/model_info_gguf.cpp)
    layout_options layout;
};

void run_model_info(const info_options& o) {
    const bool builtin = builtin_checkpoint(o.checkpoint) != nullptr;  // a name in `attn model list`
    const std::string file = builtin ? o.checkpoint : checkpoint_file(o.checkpoint);  // a Hugging Face folder: its model.safetensors
    if (!builtin && model::is_gguf_file(file)) return run_gguf_info({file, o.tensor, o.json, o.layout});
    if (const auto b = find_builtin(o.checkpoint); b && b->gguf) {  // a built-in GGUF (stories260K): its bytes
        const model::gguf_header h =
            model::parse_gguf(reinterpret_cast<const unsigned char*>(b->bytes.data()), b->bytes.size(), b->file);
        return run_gguf_info({o.checkpoint + " (built into attn: " + b->file + ")", o.tensor, o.json, o.layout}, h);
    }
    if (!o.tensor.empty() || !o.json.empty()) throw attn::error("--tensor and --json read GGUF files; " + io::terminal_safe(o.checkpoint) + " is not one");
    // The header alone: every tensor's name, shape and dtype checked, no value converted
    // (milliseconds for any size; a file cut short or sparse is never read whole).
    const model_header m = read_model_header(o.checkpoint);
    const model::architecture& c = m.config;
    std::string out;
    out += "Checkpoint:  " + io::terminal_safe(o.checkpoint) +
           (builtin ? " (built into attn: lessons/models/" + o.checkpoint + ".safetensors)" : "") + "\n";
    out += "Layout:      " + m.info.layout + "\n";
    out += "Summary:     " + model::describe(c) + "\n";
    out += "dtype:       " + io::terminal_safe(m.info.dtype) + "\n";
    out += "Config from: " + io::terminal_safe(m.info.config_source) + "\n";
    out += fmt::format("Layers:      {} (n_layer)\n", c.n_layer);
    out += fmt::format("Heads:       {} per layer (n_head), d_head {}\n", c.n_head, c.d_head());
    out += fmt::format("d_model:     {} (n_embd)\n", c.n_embd);
    out += fmt::format("d_mlp:       {}\n", c.has_mlp() ? std::to_string(c.d_mlp()) : std::string("none (attention-only blocks)"));
    out += fmt::format("Vocabulary:  {} tokens (vocab_size)\n", c.vocab_size);
    out += fmt::format("Positions:   {} (n_positions)\n", c.n_positions);
    out += fmt::format("LN epsilon:  {}\n", c.ln_eps);
    out += std::string("Unembedding: ") + (c.tied ? "tied to wte (no lm_head)" : "lm_head, its own matrix") + "\n";
    out += "Parameters:  " + trace::grouped(model::parameter_count(c)) + "\n";
    out += fmt::format("Hooks:       {} per forward (--hooks lists them)\n", model::hook_names(c).size());
    for (const auto& n : m.info.notes) out += "Note:        " + io::terminal_safe(n) + "\n";
    const trace::style st = make_style(o.layout);
    if (o.hooks) out += "\n" + trace::render_hook_table(c, o.positions ? o.positions : c.n_positions, st);
    print_fitted(out, st);
}

void setup_model_info(CLI::App& model) {
    auto o = std::make_shared<info_options>();
    auto* sub = model.add_subcommand(
        "info", "What a checkpoint holds (safetensors or GGUF): layout or architecture, config, parameter count, dtype or quantization");
    sub->add_option("CKPT", o->checkpoint, "The checkpoint (.safetensors or .gguf, or a Hugging Face folder), or a built-in model's name (attn model list)")->required();
    sub->add_option("--tensor", o->tensor, "GGUF: one tensor dequantized (a summary; every value with --json)");
    sub->add_option("--json", o->json, "GGUF: the header (metadata and tensor table), or --tensor's values, as JSON to FILE or '-'");
    sub->add_flag("--hooks", o->hooks, "Also list every hook of a forward: name, axes, shape, what it holds");
    sub->add_option("--positions", o->positions, "With --hooks: shapes for this many tokens (default: all positions)")
        ->check(CLI::PositiveNumber);
    add_layout_options(*sub, o->layout);
    sub->callback([o] { run_model_info(*o); });
}

}  // namespace

static const bool model_info_registered = register_model_verb({"info", 20, setup_model_info});

}  // namespace attn::cli
