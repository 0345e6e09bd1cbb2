// cli/model_list.cpp — `attn model list [--names] [--width N]`: the models built into
// attn (lessons/models/*.safetensors, lessons/trained_models.hpp), which every `attn
// model` verb takes by name in place of a path (cli/model_load.hpp), with what each one
// is (trace/model_list.hpp); --names prints the names alone, one a line, for scripts and
// the shell completions.
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/layout.hpp"
#include "cli/model_load.hpp"
#include "cli/model_verbs.hpp"
#include "lessons/trained_models.hpp"
#include "trace/model_list.hpp"

namespace attn::cli {

namespace {

struct list_options {
    bool names = false;
    layout_options layout;
};

std::string meta(const lessons::trained_model& m, const std::string& key) {
    const auto it = m.metadata.find(key);
    return it == m.metadata.end() ? std::string() : it->second;
}

void run_model_list(const list_options& o) {
    const auto names = builtin_checkpoint_names();  // the ones the verbs take by name
    if (o.names) {
        for (const auto& n : names) std::cout << n << "\n";
        return;
    }
    const auto used = lessons::lessons_by_model();
    std::vector<trace::listed_model> models;
    for (const auto& n : names) {
        const lessons::trained_model& m = lessons::find_trained_model(n);
        const auto it = used.find(n);
        models.push_back({n, m.params.config, meta(m, "attn.task"), meta(m, "attn.steps"),
                          it == used.end() ? std::vector<int>{} : it->second});
    }
    std::cout << trace::render_model_list(models, make_style(o.layout));
}

void setup_model_list(CLI::App& model) {
    auto o = std::make_shared<list_options>();
    auto* sub = model.add_subcommand("list", "The models built into attn, usable by name (attn model run sort …): what each is, "
                                             "its size and the lessons that use it");
    sub->add_flag("--names", o->names, "Print the names only, one a line");
    add_width_option(*sub, o->layout.width);
    sub->callback([o] { run_model_list(*o); });
}

const bool model_list_registered = register_model_verb({"list", 5, setup_model_list});

}  // namespace

}  // namespace attn::cli
