// cli/model_generate.cpp — `attn model generate CKPT (--prompt TEXT | --tokens IDS)
// [--max-new-tokens N] [--temperature T [--seed S] [--top-k K]] [--tokenizer PATH]
// [--json FILE|-] [--logits] [--threads N] [--dtype …] [--width N]`: text generated
// token by token through a KV cache (model/decode: each new token one decoding step per
// layer against the cached keys and values). Greedy unless --temperature is above 0;
// stops at the tokenizer's end-of-sequence token. Prints the prompt and the text it
// continues into (decoded by the model's tokenizer, terminal-safe), the speed on stderr;
// --json writes {"prompt_ids", "ids", "text", "stopped_at"} (with --logits every step's
// logits too). --trace L.H shows, for each new token, that head's weights over the cache
// (the newest query's row of lesson 13's cached attention) and the cache's size.
// GGUF files, GPT-2-family safetensors checkpoints, Hugging Face folders.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/layout.hpp"
#include "cli/model_budget.hpp"
#include "cli/model_stop.hpp"
#include "cli/model_load.hpp"
#include "cli/model_verbs.hpp"
#include "cli/text_stream.hpp"
#include "core/error.hpp"
#include "io/output_writer.hpp"
#include "io/terminal_safe.hpp"
#include "model/decode.hpp"
#include "model/gguf.hpp"
#include "model/gguf_checkpoint.hpp"
#include "model/memory.hpp"
#include "model/tokenizer.hpp"
#include "model/train.hpp"
#include "model/utf8.hpp"
#include "trace/table.hpp"

namespace attn::cli {

namespace {

struct generate_options {
    std::string checkpoint;
    std::string prompt, tokens, tokenizer;
    std::size_t max_new = 40;
    model::sampling how;
    std::string json;
    bool logits = false;
    std::string trace;  // --trace L.H, "" = none
    unsigned threads = 1;
    std::string dtype = "auto";
    layout_options layout;
};

// The tokenizer to decode with: --tokenizer, else a GGUF checkpoint's own (a file or a
// built-in model's), else a Hugging Face folder's (tokenizer.json, or vocab.json +
// merges.txt), else none.
std::optional<model::tokenizer> load_tokenizer(const generate_options& o) {
    if (!o.tokenizer.empty()) return load_tokenizer_at(o.tokenizer);
    if (has_own_tokenizer(o.checkpoint)) return load_tokenizer_at(o.checkpoint);
    return std::nullopt;
}

// --prompt's ids (the tokenizer adds BOS when it does) or --tokens'.
std::vector<int> prompt_ids(const generate_options& o, const std::optional<model::tokenizer>& tok) {
    if (o.prompt.empty() == o.tokens.empty()) throw attn::error("give the prompt: --prompt \"…\" or --tokens 1,2,3 (one of the two)");
    if (!o.tokens.empty()) return read_tokens({o.tokens}, "", "").ids.front();
    if (!tok)
        throw attn::error("--prompt needs a tokenizer: --tokenizer PATH (a folder with tokenizer.json or vocab.json + merges.txt, a "
                          "tokenizer.json or a GGUF); a GGUF checkpoint brings its own");
    std::vector<int> ids;
    try {
        for (const auto id : tok->encode(o.prompt)) ids.push_back(static_cast<int>(id));
    } catch (const model::invalid_utf8& e) {
        throw attn::error("--prompt: " + std::string(e.what()));
    } catch (const model::untokenizable_text& e) {
        throw attn::error("--prompt: " + std::string(e.what()));
    }
    if (ids.empty()) throw attn::error("--prompt: the text holds no tokens");
    return ids;
}

// Refuses ids outside the vocabulary and a sequence longer than the model's context.
void check_lengths(const model::architecture& a, const std::vector<int>& prompt, const generate_options& o) {
    for (std::size_t i = 0; i < prompt.size(); ++i)
        if (static_cast<std::size_t>(prompt[i]) >= a.vocab_size)
            throw attn::error(fmt::format("{}: token {} (id {}) is outside the model's vocabulary of {} ids (0 … {})",
                                          o.tokens.empty() ? "--prompt" : "--tokens", i, prompt[i], a.vocab_size, a.vocab_size - 1));
    if (prompt.size() > a.n_positions)
        throw attn::error(fmt::format("the prompt is {} tokens, longer than the model's context of {} positions", prompt.size(), a.n_positions));
    if (o.max_new > a.n_positions - prompt.size())  // (not prompt + max_new: a huge --max-new-tokens would wrap)
        throw attn::error(fmt::format("--max-new-tokens {}: the prompt's {} tokens and {} new ones would be {} positions, beyond the "
                                      "model's context of {} (at most {} new tokens after this prompt)",
                                      o.max_new, prompt.size(), o.max_new, prompt.size() + o.max_new, a.n_positions,
                                      a.n_positions - prompt.size()));
}

std::vector<std::uint32_t> unsigned_ids(const std::vector<int>& ids) { return {ids.begin(), ids.end()}; }

// The ids as words: the tokenizer's text, terminal-safe (new lines kept), else "#id" labels.
std::string words(const std::optional<model::tokenizer>& tok, const std::vector<int>& ids) {
    if (!tok) {
        std::string s;
        for (const int id : ids) s += (s.empty() ? "#" : " #") + std::to_string(id);
        return s;
    }
    return io::terminal_safe_text(tok->decode(unsigned_ids(ids)));
}

// The prompt as its tokens' readable labels ("<s> ▁Once ▁upon"), else "#id" labels.
std::string prompt_labels(const std::optional<model::tokenizer>& tok, const std::vector<int>& ids) {
    if (!tok) return words(tok, ids);
    std::string s;
    for (const int id : ids) s += (s.empty() ? "" : " ") + tok->token_label(static_cast<std::uint32_t>(id));
    return s;
}

std::string decoding_words(const generate_options& o) {
    if (o.how.temperature == 0) return "greedy (the most likely token each step)";
    return fmt::format("sampled at temperature {:g}{}, seed {}", o.how.temperature,
                       o.how.top_k ? fmt::format(" from the {} most likely", o.how.top_k) : std::string(), o.how.seed);
}

// --trace L.H → (layer, head), counted from 0 as --layer/--head of `attn model run`.
std::pair<std::size_t, std::size_t> trace_choice(const std::string& text, const model::architecture& a) {
    const std::size_t dot = text.find('.');
    std::size_t l = 0, h = 0, used_l = 0, used_h = 0;
    try {
        if (dot != std::string::npos) l = std::stoul(text.substr(0, dot), &used_l), h = std::stoul(text.substr(dot + 1), &used_h);
    } catch (const std::exception&) {
        used_l = 0;
    }
    if (dot == std::string::npos || used_l != dot || used_h != text.size() - dot - 1 || !std::isdigit(static_cast<unsigned char>(text[0])))
        throw attn::error("--trace '" + io::terminal_safe(text) + "': expected LAYER.HEAD, both counted from 0 (e.g. 0.1)");
    if (l >= a.n_layer) throw attn::error(fmt::format("--trace {}: the model has {} layers (0 … {})", text, a.n_layer, a.n_layer - 1));
    if (h >= a.n_head) throw attn::error(fmt::format("--trace {}: the model has {} heads per layer (0 … {})", text, a.n_head, a.n_head - 1));
    return {l, h};
}

// One row per new token: the query that chose it (the newest token in the cache), the
// cache's size, the traced head's three largest weights over the cache, the token chosen.
std::string trace_table(const model::generation& g, const std::vector<int>& prompt, const std::optional<model::tokenizer>& tok,
                        const std::pair<std::size_t, std::size_t>& lh, const model::architecture& a, const trace::style& st) {
    const auto label = [&](int id) { return tok ? tok->token_label(static_cast<std::uint32_t>(id)) : "#" + std::to_string(id); };
    std::vector<int> all = prompt;
    all.insert(all.end(), g.ids.begin(), g.ids.end());
    trace::table t;
    t.title = fmt::format("Layer {} of {}, head {} of {} (--trace {}.{}): each new token's query against the KV cache",
                          lh.first + 1, a.n_layer, lh.second + 1, a.n_head, lh.first, lh.second);
    t.axes = "rows: the query's position · the cache holds every token fed so far, token@position";
    t.corner = "position";
    t.col_labels = {"query", "cache", "largest weights over the cache", "next"};
    for (std::size_t j = 0; j < g.ids.size(); ++j) {
        const std::size_t step = prompt.size() - 1 + j;  // the step whose logits chose new token j
        if (step >= g.trace.size()) break;
        const std::vector<double>& w = g.trace[step];  // [step + 1]
        std::vector<std::size_t> order(w.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return w[x] > w[y]; });
        std::string top;
        for (std::size_t i = 0; i < std::min<std::size_t>(3, order.size()); ++i)
            top += fmt::format("{}{}@{} {:.2f}", i ? "  " : "", label(all[order[i]]), order[i], w[order[i]]);
        t.row_labels.push_back(std::to_string(step));
        t.cells.push_back({label(all[step]), std::to_string(w.size()), top, label(g.ids[j])});
    }
    t.shape = fmt::format("[{} × 4]", t.cells.size());
    return trace::render(t, st);
}

// The prompt's text, then each new token's as it comes (cli/text_stream), from the
// tokenizer's decoding of the whole sequence so far (so a token's bytes read as decode
// reads them: SentencePiece's first space dropped, byte tokens joined into characters).
class streamed_text {
public:
    streamed_text(const std::optional<model::tokenizer>& tok, const std::vector<int>& prompt, std::size_t width, bool on)
        : tok_(tok), ids_(prompt), out_(std::cout, width), on_(on) {
        if (on_) emit();
    }
    void add(int id) {
        ids_.push_back(id);
        if (on_) emit();
    }
    void finish() {
        if (on_) out_.finish();
    }

private:
    void emit() {
        if (!tok_) {  // ids without a tokenizer: "#5 #17 …"
            for (; done_ < ids_.size(); ++done_) out_.add((done_ ? " #" : "#") + std::to_string(ids_[done_]));
            return;
        }
        const std::string all = tok_->decode(unsigned_ids(ids_));
        if (all.size() > done_) out_.add(all.substr(done_));
        done_ = std::max(done_, all.size());
    }
    const std::optional<model::tokenizer>& tok_;
    std::vector<int> ids_;
    text_stream out_;
    bool on_;
    std::size_t done_ = 0;  // bytes of the decoded text already written (without a tokenizer: ids)
};

void write_json(io::staged_file& out, const generate_options& o, const std::optional<model::tokenizer>& tok,
                const std::vector<int>& prompt, const model::generation& g) {
    nlohmann::ordered_json j;
    j["prompt_ids"] = prompt;
    j["ids"] = g.ids;
    if (tok) j["text"] = tok->decode(unsigned_ids(g.ids));
    j["stopped_at"] = g.stopped_at_eos ? "end-of-sequence" : "max-new-tokens";
    if (o.logits) j["logits"] = g.logits;  // [steps][vocab]: after each fed token, prompt included
    if (!o.trace.empty()) j["trace"] = {{"head", o.trace}, {"weights", g.trace}};  // [steps][t + 1]
    const std::string text = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    out.write(text.data(), text.size());
    out.commit();
    if (!io::is_stdout(o.json)) std::cerr << "attn model generate: wrote " << io::terminal_safe(o.json) << "\n";
}

template <class T>
void generate_with(const model::model_params<T>& p, const loaded_model& m, const generate_options& o,
                   const std::optional<model::tokenizer>& tok, const std::vector<int>& prompt, const model::quant::weights& blocks) {
    model::decoder<T> d = model::make_decoder(p, prompt.size() + o.max_new, &blocks);
    std::pair<std::size_t, std::size_t> traced{0, 0};
    if (!o.trace.empty()) traced = trace_choice(o.trace, p.config), d.trace_layer = traced.first, d.trace_head = traced.second;
    std::optional<int> eos;
    if (tok && tok->eos_id()) eos = static_cast<int>(*tok->eos_id());
    const bool text = !io::is_stdout(o.json);  // --json - takes standard output
    std::unique_ptr<io::staged_file> json;     // opened first: an output that may not be written is refused before any work
    if (!o.json.empty()) json = std::make_unique<io::staged_file>(o.json);
    const trace::style st = make_style(o.layout);
    if (text)
        print_fitted("Model: " + model_summary(m) + "\n" +
                         fmt::format("Prompt ({} token{}): {}\n", prompt.size(), prompt.size() == 1 ? "" : "s", prompt_labels(tok, prompt)) +
                         fmt::format("Generating up to {} token{}, {}, through a KV cache: each new token one query row per head "
                                     "against the cached keys and values.\n\n",
                                     o.max_new, o.max_new == 1 ? "" : "s", decoding_words(o)),
                     st);
    streamed_text shown(tok, prompt, st.width, text);
    const auto start = std::chrono::steady_clock::now();
    const model::generation g = model::generate(d, prompt, o.max_new, o.how, eos, o.logits,
                                                [&](int id) { shown.add(id); });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    shown.finish();
    const std::string took = fmt::format("attn model generate: {} prompt + {} new tokens in {:.1f} ms,", prompt.size(),
                                         g.ids.size(), seconds * 1e3);
    const std::string speed = fmt::format("{:.0f} tokens/s ({} thread{})",
                                          static_cast<double>(prompt.size() + g.ids.size()) / seconds, o.threads,
                                          o.threads == 1 ? "" : "s");
    std::cerr << took << (took.size() + 1 + speed.size() <= st.width ? " " : "\n  ") << speed << "\n";  // within the width
    if (json) write_json(*json, o, tok, prompt, g);
    if (!text) return;
    std::string out = g.stopped_at_eos ? fmt::format("\nStopped at the end-of-sequence token, after {} new tokens.\n", g.ids.size())
                                       : fmt::format("\nStopped after --max-new-tokens {}.\n", o.max_new);
    if (!o.trace.empty()) out += "\n" + trace_table(g, prompt, tok, traced, p.config, st);
    print_fitted(out, st);
}

// The model as decoding reads it: a GGUF file in float32 keeps its Q8_0 / Q4_K weights in
// their blocks (model::read_gguf_for_decoding, into `blocks`); anything else load_model's.
loaded_model load_for_decoding(const generate_options& o, model::quant::weights& blocks) {
    if (builtin_checkpoint(o.checkpoint) || o.dtype == "float64") return load_model(o.checkpoint, o.dtype);
    const std::string path = checkpoint_file(o.checkpoint);
    if (!model::is_gguf_file(path)) return load_model(o.checkpoint, o.dtype);
    loaded_model m;
    charge_parameters(read_model_header(path).config, path);
    m.f32 = model::read_gguf_for_decoding(path, blocks, &m.info);
    return m;
}

void run_model_generate(const generate_options& o) {
    const std::optional<model::tokenizer> tok = load_tokenizer(o);
    const std::vector<int> prompt = prompt_ids(o, tok);
    model::quant::weights blocks;
    const loaded_model m = load_for_decoding(o, blocks);
    check_lengths(m.config(), prompt, o);
    charge_numbers(model::decode_numbers(m.config(), prompt.size() + o.max_new, o.logits ? prompt.size() + o.max_new : 0),
                   "the KV cache and packed weights", "--max-new-tokens");
    model::set_train_threads(o.threads);
    with_params(m, [&](const auto& p) { generate_with(p, m, o, tok, prompt, blocks); });
}

void setup_model_generate(CLI::App& model) {
    auto o = std::make_shared<generate_options>();
    auto* sub = model.add_subcommand("generate", "Generate text token by token through a KV cache (GGUF, GPT-2-family checkpoints)");
    sub->add_option("CKPT", o->checkpoint, "The checkpoint: a GGUF file, a .safetensors (config in __metadata__ or config.json) or a "
                                           "Hugging Face folder (model.safetensors, config.json, tokenizer.json), or a built-in model's name (attn model list)")->required();
    sub->add_option("--prompt,--text", o->prompt, "Text to continue, tokenized with the model's tokenizer");
    sub->add_option("--tokens", o->tokens, "The prompt as token ids, comma-separated");
    sub->add_option("--max-new-tokens,--new", o->max_new, "How many tokens to generate at most (default 40)")->check(CLI::PositiveNumber);
    sub->add_option("--temperature", o->how.temperature, "Sample from softmax(logits / T) instead of greedy (default 0: greedy)")
        ->check(CLI::NonNegativeNumber);
    sub->add_option("--top-k", o->how.top_k, "With --temperature: sample among the K most likely tokens only (default: all)");
    add_seed_option(*sub, o->how.seed, "With --temperature: the seed of the draws (default 0; the same seed, the same text)");
    sub->add_option("--tokenizer", o->tokenizer, "Tokenizer: a folder, a tokenizer.json or a GGUF (default: a GGUF checkpoint's own)");
    sub->add_option("--json", o->json, "Write {\"prompt_ids\", \"ids\", \"text\", \"stopped_at\"} as JSON to FILE, or '-' for stdout");
    sub->add_option("--trace", o->trace, "Show head L.H (from 0): each new token's query weights over the KV cache");
    sub->add_flag("--logits", o->logits, "With --json: also the logits after every fed token, [steps][vocab]");
    sub->add_option("--threads", o->threads, "Threads for the matrix products (the result is the same for any)")->check(CLI::Range(1u, 256u));
    add_dtype_option(*sub, o->dtype);
    add_budget_option(*sub);
    add_layout_options(*sub, o->layout, false);
    sub->callback([o] {
        if (o->logits && o->json.empty()) throw attn::error("--logits goes into the JSON: give --json FILE|- too");
        if (o->how.top_k > 0 && o->how.temperature == 0)
            throw attn::error("--top-k chooses among the likeliest tokens when sampling: give --temperature T above 0 too");
        stop_on_interrupt();  // Ctrl-C: within a second, exit 130 (cli/model_stop)
        run_model_generate(*o);
    });
}

}  // namespace

static const bool model_generate_registered = register_model_verb({"generate", 25, setup_model_generate});

}  // namespace attn::cli
