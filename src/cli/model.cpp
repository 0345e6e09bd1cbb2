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
    auto verbs = model_verbs();
    std::sort(verbs.begin(), verbs.end(), [](const model_verb& a, const model_verb& b) { return a.order < b.order; });
    for (const auto& v : verbs) v.setup(*model);
}

}  // namespace attn::cli
