// cli/model.cpp — `attn model VERB`: real GPT-style models (GPT-2, minGPT/nanoGPT
// checkpoints) traced like `attn trace` traces a spec. The sub-verbs register
// themselves (cli/model_verbs.hpp); this file only collects them, in their order.
#include <algorithm>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/model_verbs.hpp"
#include "cli/verbs.hpp"

namespace attn::cli {

namespace {
std::vector<model_verb>& model_verbs() {
    static std::vector<model_verb> verbs;  // filled by static initialisers of cli/model_*.cpp
    return verbs;
}
}  // namespace

bool register_model_verb(const model_verb& verb) {
    model_verbs().push_back(verb);
    return true;
}

void setup_model(CLI::App& app) {
    auto* model = app.add_subcommand("model", "Real models: load a GPT checkpoint, trace its heads, train a small one");
    model->require_subcommand(1);
    model->footer(
        "Built into attn: the lessons' models (sort, induction, ..., stories260K, a\n"
        "small Llama): give the name where a checkpoint goes, from any folder;\n"
        "attn model list names them.\n"
        "Where to get other files (attn never downloads):\n"
        "  Hugging Face models (GPT-2, Llama, Mistral, SmolLM, TinyLlama, Qwen2): the\n"
        "    model's page on huggingface.co, files config.json, model.safetensors (or\n"
        "    model.safetensors.index.json and its shards), tokenizer.json (or\n"
        "    vocab.json and merges.txt), into one folder; give the folder.\n"
        "  GGUF: from llama.cpp, a Hugging Face GGUF repository, or Ollama's own:\n"
        "    the blob its manifest (~/.ollama/models/manifests/...) lists as\n"
        "    application/vnd.ollama.image.model, in ~/.ollama/models/blobs/sha256-...\n"
        "Read: GGUF llama, qwen2 and gpt2 with F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K\n"
        "tensors (Q4_K_M files); GPT-2, minGPT, nanoGPT and Llama/Mistral/Qwen2\n"
        "safetensors (F64, F32, F16, BF16; rope_scaling llama3 or linear).\n"
        "A refusal (exit 2) names the file and byte, what attn expected and what it\n"
        "found: an architecture, tensor type or setting it does not run is refused by\n"
        "name, never guessed or approximated; nothing is written.");
    auto verbs = model_verbs();
    std::sort(verbs.begin(), verbs.end(), [](const model_verb& a, const model_verb& b) { return a.order < b.order; });
    for (const auto& v : verbs) v.setup(*model);
}

}  // namespace attn::cli
