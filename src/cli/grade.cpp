// cli/grade.cpp — `attn grade`: placeholder until its issue lands; refuses with exit 2.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/verbs.hpp"

namespace attn::cli {

void setup_grade(CLI::App& app) {
    auto* sub = app.add_subcommand("grade", "Grade answer files (not built yet)");
    sub->allow_extras();
    sub->callback([] {
        std::cerr << "attn grade: not built yet in this version\n";
        throw exit_request{2};
    });
}

}  // namespace attn::cli
