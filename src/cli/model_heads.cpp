// cli/model_heads.cpp — `attn model heads CKPT [--tokens …]… [--length N] [--seed S]
// [--dtype …] [--width N] [--color …]`: every layer × head scored as a previous-token,
// duplicate-token and induction head (model/head_detector.hpp, TransformerLens's
// head_detector), on N random tokens repeated twice (default) or on given sequences.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/layout.hpp"
#include "cli/model_budget.hpp"
#include "cli/model_stop.hpp"
#include "core/error.hpp"
#include "io/size_budget.hpp"
#include "cli/model_load.hpp"
#include "cli/model_verbs.hpp"
#include "model/head_detector.hpp"
#include "trace/model_report.hpp"

namespace attn::cli {

namespace {

struct heads_options {
    std::string checkpoint;
    std::vector<std::string> tokens;
    std::size_t length = 0;  // 0: min(20, n_positions / 2)
    std::uint64_t seed = 0;
    std::string dtype = "auto";
    layout_options layout;
};

void run_model_heads(const heads_options& o) {
    const loaded_model m = load_model(o.checkpoint, o.dtype);
    const model::architecture& c = m.config();
    std::vector<std::vector<int>> ids;
    std::string note;
    if (!o.tokens.empty()) {
        ids = read_tokens(o.tokens, "", "").ids;
        note = fmt::format("Input: {} given sequence{} of {} tokens (scores averaged over them).", ids.size(),
                           ids.size() == 1 ? "" : "s", ids[0].size());
    } else {
        // A model trained on sequences that start with BOS (token 0: attn's induction task)
        // is scored as it was trained: BOS, then tokens other than 0.
        const bool bos = m.info.metadata.count("attn.task") && m.info.metadata.at("attn.task") == "induction";
        const std::size_t room = c.n_positions - (bos ? 1 : 0);
        const std::size_t n = o.length ? o.length : std::min<std::size_t>(20, room / 2);
        if (n == 0 || 2 * n > room)
            throw attn::error(fmt::format("--length {}: twice it{} must fit the model's {} positions", n,
                                          bos ? " and BOS" : "", c.n_positions));
        std::vector<int> t = model::repeated_random_tokens(c.vocab_size - (bos ? 1 : 0), n, o.seed);  // [2n]
        if (bos) {
            for (int& id : t) ++id;
            t.insert(t.begin(), 0);
        }
        ids.push_back(t);
        note = bos ? fmt::format("Input: BOS, then {} random tokens (seed {}) repeated twice, as the model was trained: "
                                 "{} positions.", n, o.seed, 2 * n + 1)
                   : fmt::format("Input: {} random tokens (seed {}) repeated twice: {} positions.", n, o.seed, 2 * n);
    }
    model::check_tokens(c, ids);
    const std::size_t P = ids.front().size();
    if (P < 2)  // every score would be 0 of 0 cells, and one head named "highest" at 0.000
        throw attn::error(attn::source_pos{"--tokens"}, "expected sequences of at least 2 tokens, found 1: a head is scored "
                                                        "by where a token attends among the earlier ones, and the first has none");
    charge_traced_forward(c, ids.size(), P, model::stage_request::patterns(), o.tokens.empty() ? "--length" : "--tokens");
    charge_numbers(io::checked_product({3, P, P}), "the three detection patterns", o.tokens.empty() ? "--length" : "--tokens");
    model::head_scores s;
    with_params(m, [&](const auto& p) { s = model::detect_heads(model::trace_stages(p, ids, model::stage_request::patterns()), c); });
    const trace::style st = make_style(o.layout);
    print_fitted("Model: " + model_summary(m) + "\n" + trace::render_head_scores(s, note, st), st);
}

void setup_model_heads(CLI::App& model) {
    auto o = std::make_shared<heads_options>();
    auto* sub = model.add_subcommand("heads", "Score every head as previous-token, duplicate-token and induction head");
    sub->add_option("CKPT", o->checkpoint, "The checkpoint (.safetensors), or a built-in model's name (attn model list)")->required();
    sub->add_option("--tokens", o->tokens, "Score on these token ids instead (comma-separated; repeatable, same length)");
    sub->add_option("--length", o->length, "How many random tokens to repeat (default 20, at most half the positions)")
        ->check(CLI::PositiveNumber);
    add_seed_option(*sub, o->seed, "Seed of the random tokens (default 0)");
    add_dtype_option(*sub, o->dtype);
    add_budget_option(*sub);
    add_layout_options(*sub, o->layout);
    sub->callback([o] {
        stop_on_interrupt();  // Ctrl-C: within a second, exit 130 (cli/model_stop)
        run_model_heads(*o);
    });
}

}  // namespace

static const bool model_heads_registered = register_model_verb({"heads", 30, setup_model_heads});

}  // namespace attn::cli
