// cli/exercise.cpp — `attn exercise`: placeholder until its issue lands; refuses with exit 2.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/verbs.hpp"

namespace attn::cli {

void setup_exercise(CLI::App& app) {
    auto* sub = app.add_subcommand("exercise", "List, show and template exercises (not built yet)");
    sub->allow_extras();
    sub->callback([] {
        std::cerr << "attn exercise: not built yet in this version\n";
        throw exit_request{2};
    });
}

}  // namespace attn::cli
