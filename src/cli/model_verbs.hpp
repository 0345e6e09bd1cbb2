// cli/model_verbs.hpp — the sub-verbs of `attn model` (run, info, heads, tokenize,
// train), a registry that carries each one's setup: a sub-verb lives in its own
// cli/model_<name>.cpp and registers itself there with one line,
//     static const bool model_run_registered = register_model_verb({"run", 10, setup_model_run});
// so adding one touches no shared list. `order` sorts them in `attn model --help`.
#pragma once

namespace CLI {
class App;
}

namespace attn::cli {

struct model_verb {
    const char* name;              // "run"
    int order;                     // position in `attn model --help`
    void (*setup)(CLI::App& model);  // adds the sub-verb to `attn model`
};

// Returns true so a file can register from a static initialiser.
bool register_model_verb(const model_verb& verb);

}  // namespace attn::cli
