// cli/model_load.hpp — what the `attn model` sub-verbs share: a checkpoint read in
// the dtype asked for (--dtype auto: float64 for an F64 file, else float32), the token
// sequences of --tokens / --text with their readable labels, and --dtype's option.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/checkpoint.hpp"
#include "model/params.hpp"
#include "model/tokenizer.hpp"

namespace CLI {
class App;
}

namespace attn::cli {

struct loaded_model {
    model::checkpoint_info info;
    std::optional<model::model_params<float>> f32;   // exactly one of the two is set
    std::optional<model::model_params<double>> f64;
    const model::architecture& config() const { return f64 ? f64->config : f32->config; }
    const char* dtype_name() const { return f64 ? "float64" : "float32"; }
};

// A checkpoint's config and description from its header alone (nothing converted):
// `attn model info`, and load_model before it allocates.
struct model_header {
    model::checkpoint_info info;
    model::architecture config;
};
model_header read_model_header(const std::string& path);

// The model built into attn that `given` names (lessons/models/NAME.safetensors, `attn
// model list`) when no file or folder of that name exists, else nullptr: a path wins.
// Throws attn::error when it is neither, listing the built-in names (exit 2).
const std::string_view* builtin_checkpoint(const std::string& given);
// The names builtin_checkpoint takes: the built-in safetensors and GGUF models (`attn
// model list`).
std::vector<std::string> builtin_checkpoint_names();

// A model built into attn: its bytes and the file its errors name
// ("lessons/models/stories260K.gguf").
struct builtin_model {
    std::string_view bytes;
    std::string file;
    bool gguf = false;
};
// The built-in model `given` names, or nullopt (a file or folder of that name exists, or
// no built-in model has it). Never throws.
std::optional<builtin_model> find_builtin(const std::string& given);

// The tokenizer at `path` (model::tokenizer::load: a folder, a tokenizer.json, a GGUF),
// or a built-in GGUF model's own by its name.
model::tokenizer load_tokenizer_at(const std::string& path);
// True when the checkpoint brings its tokenizer: a GGUF (a file or a built-in name), a
// Hugging Face folder with tokenizer.json (or vocab.json + merges.txt).
bool has_own_tokenizer(const std::string& checkpoint);

// dtype: "auto" | "float32" | "float64". The parameters are charged to the run's memory
// budget (cli/model_budget) from the header, before any is allocated. A model built into attn by its name
// (builtin_checkpoint), a GGUF file (model/gguf_checkpoint), a
// safetensors checkpoint (model/checkpoint), or a Hugging Face folder (its
// model.safetensors, with the config.json beside it).
loaded_model load_model(const std::string& path, const std::string& dtype);

// The checkpoint file of `path`: the path itself, or a folder's model.safetensors, else
// its model.safetensors.index.json (shards). Throws attn::error for a folder with neither.
std::string checkpoint_file(const std::string& path);

// Calls fn(params) with the parameters in the dtype they were read in.
template <class Fn>
void with_params(const loaded_model& m, Fn&& fn) {
    if (m.f64) fn(*m.f64);
    else fn(*m.f32);
}

// Adds --seed S: a whole number 0 … 2^64 − 1, refused by name otherwise ("-1" wrapped
// to 2^64 − 1 before).
void add_seed_option(CLI::App& sub, std::uint64_t& seed, const std::string& help);

// Adds --dtype auto|float32|float64 to a sub-verb.
void add_dtype_option(CLI::App& sub, std::string& dtype);

// The sequences a run is given and how its tokens are shown.
struct token_input {
    std::vector<std::vector<int>> ids;                  // [B][P]
    std::vector<std::vector<std::string>> labels;       // [B][P] readable, terminal-safe
    std::vector<std::vector<std::string>> texts;        // [B][P] token text (with a tokenizer), else empty
    std::vector<std::string> vocabulary_labels;         // per id (with a tokenizer), else empty
    std::string label(int id) const;                    // vocabulary_labels[id], or "#id"
};

// From "--tokens 0,1,2" (one string per sequence) or --text with --tokenizer PATH (a
// folder, a tokenizer.json or a GGUF: model::tokenizer::load). Without --tokenizer, a
// GGUF checkpoint's own tokenizer. Throws attn::error naming the bad flag and value.
token_input read_tokens(const std::vector<std::string>& tokens, const std::string& text, const std::string& tokenizer_path,
                        const std::string& checkpoint = "");

// A token named on the command line (--target, --metric): its id ("#17", as attn labels a
// token, or "17"), or its text or readable label in the tokenizer's vocabulary ("␣mat").
// Throws attn::error naming flag for an unknown token, and for an ambiguous one: a text
// several ids read as, or digits that are both an id and another token's text.
int token_id(const token_input& in, const std::string& word, const std::string& flag, std::size_t vocab_size);

// A one-line summary: "GPT-2 (Hugging Face) · 2 layers × 4 heads · d_model 64 · …".
std::string model_summary(const loaded_model& m);

}  // namespace attn::cli
