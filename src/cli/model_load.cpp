// cli/model_load.cpp — checkpoint, dtype and tokens for the `attn model` sub-verbs.
#include "cli/model_load.hpp"
#include "cli/model_budget.hpp"
#include "core/error.hpp"

#include <filesystem>
#include <optional>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "io/toml_read.hpp"
#include "lessons/trained_models.hpp"
#include "model/gguf.hpp"
#include "model/gguf_checkpoint.hpp"
#include "model/checkpoint_shards.hpp"
#include "model/gguf_tokenizer.hpp"
#include "model/tokenizer.hpp"
#include "io/terminal_safe.hpp"
#include "model/utf8.hpp"
#include "trace/model_head.hpp"

namespace attn::cli {

std::string checkpoint_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) return path;
    const std::string file = (std::filesystem::path(path) / "model.safetensors").string();
    if (std::filesystem::is_regular_file(file, ec)) return file;
    const std::string index = (std::filesystem::path(path) / "model.safetensors.index.json").string();
    if (std::filesystem::exists(index, ec)) return index;  // shards: read as one (model/checkpoint_shards.hpp)
    throw attn::error(path + ": a folder without model.safetensors or model.safetensors.index.json; give the checkpoint "
                             "file (.safetensors or .gguf)");
}

namespace {
loaded_model load_builtin(const std::string& name, std::string_view bytes, const std::string& dtype);

// NAME.safetensors or NAME.gguf among the built-in files, or "" when neither is.
std::string builtin_file_name(const std::string& name) {
    if (name.empty()) return "";
    for (const char* suffix : {".safetensors", ".gguf"})
        if (lessons::find_model_file(name + suffix)) return name + suffix;
    return "";
}
}  // namespace

std::optional<builtin_model> find_builtin(const std::string& given) {
    std::error_code ec;
    if (given.empty() || std::filesystem::exists(given, ec)) return std::nullopt;
    const std::string file = builtin_file_name(given);
    if (file.empty()) return std::nullopt;
    const std::string_view bytes = *lessons::find_model_file(file);
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    return builtin_model{bytes, "lessons/models/" + file, model::is_gguf_bytes(data, bytes.size())};
}

model::tokenizer load_tokenizer_at(const std::string& path) {
    if (const auto b = find_builtin(path); b && b->gguf)
        return model::tokenizer_from_gguf(model::read_gguf_tokenizer_fields(
            b->file, reinterpret_cast<const unsigned char*>(b->bytes.data()), b->bytes.size()));
    return model::tokenizer::load(path);
}

bool has_own_tokenizer(const std::string& checkpoint) {
    if (checkpoint.empty()) return false;
    if (const auto b = find_builtin(checkpoint)) return b->gguf;
    std::error_code ec;
    const std::filesystem::path dir(checkpoint);
    return model::tokenizer::is_gguf(checkpoint) || std::filesystem::is_regular_file(dir / "tokenizer.json", ec) ||
           (std::filesystem::is_directory(dir, ec) && std::filesystem::exists(dir / "vocab.json", ec));
}

model_header read_model_header(const std::string& given) {
    model_header h;
    if (const std::string_view* bytes = builtin_checkpoint(given)) {  // built in: small, read whole
        const loaded_model m = load_builtin(given, *bytes, "float32");
        h.info = m.info;
        h.config = m.f32->config;
        return h;
    }
    const std::string path = checkpoint_file(given);
    h.config = model::is_gguf_file(path)       ? model::read_gguf_config(path, &h.info)
               : model::is_shard_index(path) ? model::read_sharded_checkpoint_config(path, &h.info)
                                             : model::read_checkpoint_config(path, &h.info);
    return h;
}

std::vector<std::string> builtin_checkpoint_names() {
    std::vector<std::string> names;
    for (const auto& n : lessons::trained_model_names())
        if (!builtin_file_name(n).empty()) names.push_back(n);
    return names;
}

const std::string_view* builtin_checkpoint(const std::string& given) {
    std::error_code ec;
    if (given.empty() || std::filesystem::exists(given, ec)) return nullptr;
    if (const std::string file = builtin_file_name(given); !file.empty()) return lessons::find_model_file(file);
    const std::vector<std::string> names = builtin_checkpoint_names();
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw attn::error(io::terminal_safe(given) + ": no such file or folder, and no model built into attn has that name" +
                      io::hint_suffix(given, names) + "; the built-in ones are " + known +
                      " (attn model list). Other checkpoints are files you bring: attn model --help says where "
                      "they come from");
}

namespace {

// A built-in model's bytes, read as "lessons/models/NAME.safetensors" or NAME.gguf (what
// its errors say) in the dtype asked for, as load_model reads a file.
loaded_model load_builtin(const std::string& name, std::string_view bytes, const std::string& dtype) {
    loaded_model m;
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    const std::string shown = "lessons/models/" + builtin_file_name(name);
    if (model::is_gguf_bytes(data, bytes.size())) {  // GGUF: float32 unless float64 is asked for
        const model::gguf_header h = model::parse_gguf(data, bytes.size(), shown);
        if (dtype == "float64") m.f64 = model::read_gguf_params<double>(h, &m.info);
        else m.f32 = model::read_gguf_params<float>(h, &m.info);
        return m;
    }
    if (dtype != "float64") m.f32 = model::read_checkpoint_bytes<float>(data, bytes.size(), shown, "", &m.info);
    if (dtype == "float64" || (dtype == "auto" && m.info.dtype == "F64")) {  // a float64 file computes in float64
        m.f32.reset();
        m.f64 = model::read_checkpoint_bytes<double>(data, bytes.size(), shown, "", &m.info);
    }
    return m;
}

}  // namespace

loaded_model load_model(const std::string& given, const std::string& dtype) {
    if (const std::string_view* bytes = builtin_checkpoint(given)) return load_builtin(given, *bytes, dtype);
    loaded_model m;
    const std::string path = checkpoint_file(given);
    // The header first (milliseconds): the parameters are charged to the run's budget
    // before they are allocated, and --dtype auto learns the file's dtype without
    // converting a value (an F64 file is read once, as float64).
    const model_header h = read_model_header(path);
    charge_parameters(h.config, path);
    const bool f64 = dtype == "float64" || (dtype == "auto" && h.info.dtype == "F64");
    if (model::is_gguf_file(path)) {  // GGUF: float32 unless float64 is asked for (no GGUF type is F64)
        if (f64) m.f64 = model::read_gguf_checkpoint<double>(path, &m.info);
        else m.f32 = model::read_gguf_checkpoint<float>(path, &m.info);
    } else if (model::is_shard_index(path)) {  // model.safetensors.index.json and its shards
        if (f64) m.f64 = model::read_sharded_checkpoint<double>(path, &m.info);
        else m.f32 = model::read_sharded_checkpoint<float>(path, &m.info);
    } else if (f64) {
        m.f64 = model::read_checkpoint<double>(path, &m.info);
    } else {
        m.f32 = model::read_checkpoint<float>(path, &m.info);
    }
    return m;
}

void add_seed_option(CLI::App& sub, std::uint64_t& seed, const std::string& help) {
    sub.add_option("--seed", seed, help)->check(CLI::Validator(
        [](const std::string& s) -> std::string {
            const bool digits = !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
            if (digits && (s.size() < 20 || s <= "18446744073709551615")) return "";
            return "expected a whole number from 0 to 18446744073709551615, found '" + io::terminal_safe(s) + "'";
        },
        "SEED"));
}

void add_dtype_option(CLI::App& sub, std::string& dtype) {
    sub.add_option("--dtype", dtype, "Compute in float32 or float64 (default auto: float64 for an F64 file, else float32)")
        ->check(CLI::IsMember({"auto", "float32", "float64"}));
}

std::string token_input::label(int id) const {
    if (id >= 0 && static_cast<std::size_t>(id) < vocabulary_labels.size()) return vocabulary_labels[static_cast<std::size_t>(id)];
    return trace::id_label(id);
}

namespace {

std::vector<int> parse_ids(const std::string& list) {
    std::vector<int> ids;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string item = list.substr(start, comma - start);
        std::size_t used = 0;
        long long v = -1;
        try {
            v = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size() || v < 0 || v > 2147483647LL)
            throw attn::error("--tokens '" + list + "': '" + item +
                                        "' is not a token id (ids are whole numbers from 0, separated by commas)");
        ids.push_back(static_cast<int>(v));
        start = comma + 1;
    }
    return ids;
}

// --text's ids; a text the tokenizer cannot encode exactly is refused by its byte.
std::vector<std::uint32_t> encode_text(const model::tokenizer& tok, const std::string& text) {
    try {
        return tok.encode(text);
    } catch (const model::invalid_utf8& e) {
        throw attn::error("--text: " + std::string(e.what()));
    } catch (const model::untokenizable_text& e) {
        throw attn::error("--text: " + std::string(e.what()));
    }
}

}  // namespace

token_input read_tokens(const std::vector<std::string>& tokens, const std::string& text, const std::string& tokenizer_path,
                        const std::string& checkpoint) {
    if (!tokens.empty() && !text.empty()) throw attn::error("give either --tokens or --text, not both");
    if (tokens.empty() && text.empty()) throw attn::error("give the input: --tokens 0,1,2 (repeatable) or --text \"…\" --tokenizer PATH");
    // A GGUF checkpoint (a file, or one built into attn) carries its own tokenizer, a
    // Hugging Face folder its tokenizer.json.
    const bool own = tokenizer_path.empty() && has_own_tokenizer(checkpoint);
    const std::string tokenizer_dir = own ? checkpoint : tokenizer_path;
    if (!text.empty() && tokenizer_dir.empty())
        throw attn::error("--text needs --tokenizer PATH (a folder with tokenizer.json or vocab.json + merges.txt, a tokenizer.json, or a GGUF file)");
    token_input in;
    std::optional<model::tokenizer> tok;
    if (!tokenizer_dir.empty()) {
        tok = load_tokenizer_at(tokenizer_dir);
        in.vocabulary_labels.resize(tok->vocab_size());
        for (std::size_t id = 0; id < tok->vocab_size(); ++id) in.vocabulary_labels[id] = tok->token_label(static_cast<std::uint32_t>(id));
    }
    if (!text.empty()) {
        std::vector<int> ids;
        for (auto id : encode_text(*tok, text)) ids.push_back(static_cast<int>(id));
        if (ids.empty()) throw attn::error("--text: the text holds no tokens");
        in.ids.push_back(ids);
    } else {
        for (const auto& t : tokens) in.ids.push_back(parse_ids(t));
    }
    for (const auto& row : in.ids) {
        std::vector<std::string> labels, texts;
        for (int id : row) {
            labels.push_back(in.label(id));
            if (tok && static_cast<std::size_t>(id) < tok->vocab_size()) texts.push_back(tok->token_bytes(static_cast<std::uint32_t>(id)));
        }
        in.labels.push_back(labels);
        if (tok) in.texts.push_back(texts);
    }
    return in;
}

namespace {

// "#17": the id written as attn labels a token with no text (token_input::label).
std::optional<int> token_id_marked(const std::string& word, const std::string& flag, std::size_t vocab_size) {
    const std::string digits = word.size() > 1 && word[0] == '#' ? word.substr(1) : "";
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    if (std::stoul(digits) >= vocab_size)
        throw attn::error(fmt::format("{} {}: token id {} is not in the vocabulary (ids 0..{})", flag, word, digits, vocab_size - 1));
    return static_cast<int>(std::stoul(digits));
}

// "#12, #345 and #400" (at most five named).
std::string token_id_list(const std::vector<int>& ids) {
    std::string out;
    for (std::size_t i = 0; i < ids.size() && i < 5; ++i)
        out += (i ? (i + 1 == std::min<std::size_t>(ids.size(), 5) ? " and " : ", ") : "") + fmt::format("#{}", ids[i]);
    return out + (ids.size() > 5 ? fmt::format(" (and {} more)", ids.size() - 5) : "");
}

}  // namespace

int token_id(const token_input& in, const std::string& word, const std::string& flag, std::size_t vocab_size) {
    if (const auto marked = token_id_marked(word, flag, vocab_size)) return *marked;
    std::vector<int> named;  // ids whose readable label or text is the word
    for (std::size_t id = 0; id < in.vocabulary_labels.size(); ++id)
        if (in.vocabulary_labels[id] == word) named.push_back(static_cast<int>(id));
    const bool digits = !word.empty() && word.size() <= 9 && word.find_first_not_of("0123456789") == std::string::npos;
    if (digits && !named.empty() && !(named.size() == 1 && named[0] == static_cast<int>(std::stoul(word))))
        throw attn::error(fmt::format("{} '{}' is ambiguous: token id {} or the token {} whose text is '{}'; write #{} for the id, "
                                      "or the id of the text as {}",
                                      flag, word, word, token_id_list(named), io::terminal_safe(word), word, token_id_list(named)));
    if (named.size() > 1)
        throw attn::error(fmt::format("{} '{}' is ambiguous: {} tokens read '{}' ({}); name one by its id, as #{}", flag,
                                      io::terminal_safe(word), named.size(), io::terminal_safe(word), token_id_list(named), named[0]));
    if (named.size() == 1) return named[0];
    if (digits && std::stoul(word) < vocab_size) return static_cast<int>(std::stoul(word));
    if (digits)
        throw attn::error(fmt::format("{} {}: token id {} is not in the vocabulary (ids 0..{})", flag, word, word, vocab_size - 1));
    throw attn::error(fmt::format("{} '{}': no such token in the vocabulary{}", flag, io::terminal_safe(word),
                                  in.vocabulary_labels.empty() ? " (give a token id, 17 or #17, or --tokenizer to name tokens)"
                                                               : " (name a token by its text or its id, #17)"));
}

std::string model_summary(const loaded_model& m) {
    const auto& c = m.config();
    return fmt::format("{} · {} layer{} × {} head{} · d_model {} · d_head {} · vocab {} · {} positions{}{} · {}",
                       m.info.layout, c.n_layer, c.n_layer == 1 ? "" : "s", c.n_head, c.n_head == 1 ? "" : "s",
                       c.n_embd, c.d_head(), c.vocab_size, c.n_positions, c.has_mlp() ? "" : " · attention-only",
                       c.tied ? " · tied unembedding" : "", m.dtype_name());
}

}  // namespace attn::cli
