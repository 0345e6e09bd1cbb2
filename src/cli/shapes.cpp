// cli/shapes.cpp — `attn shapes`: placeholder until its issue lands; refuses with exit 2.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/verbs.hpp"

namespace attn::cli {

void setup_shapes(CLI::App& app) {
    auto* sub = app.add_subcommand("shapes", "Print shape tables, symbolic or numeric (not built yet)");
    sub->allow_extras();
    sub->callback([] {
        std::cerr << "attn shapes: not built yet in this version\n";
        throw exit_request{2};
    });
}

}  // namespace attn::cli
