// cli/trace.cpp — `attn trace`: placeholder until its issue lands; refuses with exit 2.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/verbs.hpp"

namespace attn::cli {

void setup_trace(CLI::App& app) {
    auto* sub = app.add_subcommand("trace", "Trace one attention computation from a spec file (not built yet)");
    sub->allow_extras();
    sub->callback([] {
        std::cerr << "attn trace: not built yet in this version\n";
        throw exit_request{2};
    });
}

}  // namespace attn::cli
