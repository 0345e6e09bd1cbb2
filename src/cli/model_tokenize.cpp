// cli/model_tokenize.cpp — `attn model tokenize --tokenizer PATH (--file F | TEXT)…
// [--json]`: a tokenizer (model/tokenizer: a folder, a tokenizer.json or a GGUF) on the
// command line. Each input is
// tokenized on its own: its ids, then one row per token with a readable label; with
// --json one line {"ids": […], "tokens": […]} per input (tokens spelled as the
// vocabulary spells them: "Ġworld"), so a list of texts is JSON Lines.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/layout.hpp"
#include "cli/model_budget.hpp"
#include "cli/model_load.hpp"
#include "cli/model_verbs.hpp"
#include "core/error.hpp"
#include "io/input_error.hpp"
#include "io/input_read.hpp"
#include "io/terminal_safe.hpp"
#include "model/memory.hpp"
#include "model/tokenizer.hpp"
#include "model/tokenizer_files.hpp"
#include "model/utf8.hpp"
#include "trace/text_width.hpp"

namespace attn::cli {

namespace {

struct tokenize_options {
    std::string tokenizer;
    std::vector<std::string> files;
    std::vector<std::string> texts;
    std::vector<std::string> decode;  // --decode IDS: ids back to text, one list each
    bool json = false;
    std::size_t width = 0;  // --width: the text report fitted to it (0: lines whole)
};

struct named_text {
    std::string name;  // the file, or "text N" for the N-th TEXT
    std::string text;
};

// The inputs in command-line order: TEXT arguments first, then the files.
std::vector<named_text> read_inputs(const tokenize_options& o) {
    std::vector<named_text> inputs;
    for (std::size_t k = 0; k < o.texts.size(); ++k) inputs.push_back({"text " + std::to_string(k + 1), o.texts[k]});
    io::input_limits limits;
    limits.what = "text";
    for (const auto& f : o.files) inputs.push_back({f == "-" ? io::stdin_name : f, io::read_input_file(f, limits)});
    return inputs;
}

// The ids of one input; invalid UTF-8 and text the tokenizer cannot encode exactly are
// reported at their line and column.
std::vector<std::uint32_t> encode_input(const model::tokenizer& tok, const named_text& in) {
    try {
        return tok.encode(in.text);
    } catch (const model::invalid_utf8& e) {
        throw io::input_error("invalid", model::position_in(in.name, in.text, e.offset),
                              "expected UTF-8 text (byte offset " + std::to_string(e.offset) + "): " + e.detail);
    } catch (const model::untokenizable_text& e) {
        throw io::input_error("untokenizable", model::position_in(in.name, in.text, e.offset),
                              "cannot tokenize this text exactly (byte offset " + std::to_string(e.offset) + "): " + e.detail);
    }
}

// {"ids":[…],"tokens":[…]} written as it goes, each token string escaped by nlohmann (the
// bytes nlohmann's dump of the whole object gives): a tree of 15 million strings for a
// 60 MB text took gigabytes.
void write_json_line(std::ostream& out, const model::tokenizer& tok, const std::vector<std::uint32_t>& ids) {
    out << "{\"ids\":[";
    for (std::size_t k = 0; k < ids.size(); ++k) out << (k ? "," : "") << ids[k];
    out << "],\"tokens\":[";
    for (std::size_t k = 0; k < ids.size(); ++k) out << (k ? "," : "") << nlohmann::json(tok.token_piece(ids[k])).dump();
    out << "]}\n";
}

std::string readable(const model::tokenizer& tok, const named_text& in, const std::vector<std::uint32_t>& ids) {
    std::string out = fmt::format("{}: {} token{} from {} byte{}\n", io::terminal_safe(in.name), ids.size(),
                                  ids.size() == 1 ? "" : "s", in.text.size(), in.text.size() == 1 ? "" : "s");
    if (ids.empty()) return out;
    out += "ids:";
    for (const auto id : ids) out += fmt::format(" {}", id);
    out += "\n";
    const std::size_t pos_w = std::max<std::size_t>(3, std::to_string(ids.size() - 1).size());
    const std::size_t id_w = std::max<std::size_t>(2, std::to_string(tok.vocab_size() - 1).size());
    out += fmt::format("{:>{}}  {:>{}}  token\n", "pos", pos_w, "id", id_w);
    for (std::size_t p = 0; p < ids.size(); ++p)
        out += fmt::format("{:>{}}  {:>{}}  {}\n", p, pos_w, ids[p], id_w, tok.token_label(ids[p]));
    return out;
}

// "1,2,3" → ids below the vocabulary size, or a refusal naming the item.
std::vector<std::uint32_t> parse_decode_ids(const model::tokenizer& tok, const std::string& list) {
    std::vector<std::uint32_t> ids;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string item = list.substr(start, comma - start);
        const bool digits = !item.empty() && item.size() <= 9 && item.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoul(item) >= tok.vocab_size())
            throw attn::error("--decode '" + io::terminal_safe(list) + "': '" + io::terminal_safe(item) +
                              "' is not a token id of this tokenizer (0 … " + std::to_string(tok.vocab_size() - 1) +
                              ", separated by commas)");
        ids.push_back(static_cast<std::uint32_t>(std::stoul(item)));
        start = comma + 1;
    }
    return ids;
}

// --decode: each list of ids as text; with --json one line {"ids": […], "text": "…"}.
std::string decoded(const model::tokenizer& tok, const tokenize_options& o) {
    std::string out;
    for (const auto& list : o.decode) {
        const auto ids = parse_decode_ids(tok, list);
        const std::string text = tok.decode(ids);
        if (o.json) out += nlohmann::json({{"ids", ids}, {"text", text}}).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        else out += io::terminal_safe(text) + "\n";
    }
    return out;
}

void run_model_tokenize(const tokenize_options& o) {
    if (!o.decode.empty()) {
        if (!o.texts.empty() || !o.files.empty()) throw attn::error("model tokenize: give texts to tokenize or --decode ids, not both");
        std::cout << decoded(load_tokenizer_at(o.tokenizer), o);
        return;
    }
    if (o.texts.empty() && o.files.empty())
        throw attn::error("model tokenize: give a TEXT or --file F (or --file - for standard input), or --decode IDS");
    const auto inputs = read_inputs(o);
    const auto tok = load_tokenizer_at(o.tokenizer);
    std::vector<std::vector<std::uint32_t>> ids;  // [input][token]: every input encoded first, so a bad one prints nothing
    for (const auto& in : inputs) {
        charge_numbers(model::encode_numbers(in.text.size()),
                       "tokenizing its " + std::to_string(in.text.size()) + " bytes", in.name);
        ids.push_back(encode_input(tok, in));
    }
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        if (o.json) {
            write_json_line(std::cout, tok, ids[k]);
            continue;
        }
        const std::string out = (k ? "\n" : "") + readable(tok, inputs[k], ids[k]);
        std::cout << (o.width ? trace::fit_lines(out, o.width) : out);
    }
}

void setup_model_tokenize(CLI::App& model) {
    auto opt = std::make_shared<tokenize_options>();
    auto* sub = model.add_subcommand("tokenize", "A tokenizer (GPT-2, Hugging Face tokenizer.json, GGUF): the token ids of a text");
    sub->add_option("--tokenizer", opt->tokenizer,
                    "A folder (tokenizer.json, vocab.json + merges.txt or encoder.json + vocab.bpe), a tokenizer.json or a GGUF file")
        ->required();
    sub->add_option("--file", opt->files, "Tokenize the text of this file (- for standard input); may be repeated");
    sub->add_option("--decode", opt->decode, "Token ids back to text, comma-separated (repeatable)");
    sub->add_flag("--json", opt->json, "One line {\"ids\": […], \"tokens\": […]} per input");
    sub->add_option("TEXT", opt->texts, "The text(s) to tokenize, each on its own");
    add_width_option(*sub, opt->width);
    add_budget_option(*sub);
    sub->callback([opt] { run_model_tokenize(*opt); });
}

const bool model_tokenize_registered = register_model_verb({"tokenize", 40, setup_model_tokenize});

}  // namespace

}  // namespace attn::cli
