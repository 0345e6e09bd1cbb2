// cli/examples.cpp — `attn examples [NAME]`: see examples.hpp. Each example's
// description is its first comment line after the file name ("# cat-window.toml — …").
#include "cli/examples.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/layout.hpp"
#include "lessons/embedded_lessons.hpp"
#include "io/toml_read.hpp"
#include "trace/text_width.hpp"

namespace attn::cli {

namespace {

std::string name_of(const lessons::embedded_file& f) {
    const std::string n(f.name);
    return n.size() > 5 && n.compare(n.size() - 5, 5, ".toml") == 0 ? n.substr(0, n.size() - 5) : n;
}

// The file's opening comment after its name, up to the first sentence's end:
// "# examples/trace/cat-window.toml — lesson 19: causal attention with a sliding
// window\n# of 1: each …" → "lesson 19: causal attention with a sliding window of 1: …".
std::string description_of(const lessons::embedded_file& f) {
    std::string joined;
    std::size_t at = 0;
    while (at < f.text.size() && f.text.compare(at, 2, "# ") == 0) {
        const std::size_t end = std::min(f.text.find('\n', at), f.text.size());
        joined += (joined.empty() ? "" : " ") + std::string(f.text.substr(at + 2, end - at - 2));
        at = end + 1;
    }
    const std::size_t dash = joined.find(" — ");
    if (dash == std::string::npos) return "";
    joined = joined.substr(dash + std::string(" — ").size());
    const std::size_t stop = joined.find(". ");
    return stop == std::string::npos ? joined : joined.substr(0, stop + 1);
}

std::vector<std::string> example_names() {
    std::vector<std::string> names;
    for (const auto& f : lessons::embedded_examples()) names.push_back(name_of(f));
    return names;
}

void list_examples(const trace::style& st) {
    std::string out = "Trace examples built into attn (`attn trace --example NAME` runs one,\n"
                      "`attn examples NAME > spec.toml` writes it to start from):\n\n";
    for (const auto& f : lessons::embedded_examples())
        out += "  " + name_of(f) + "\n" + trace::wrap_prose("      " + description_of(f), st.width) + "\n";
    print_fitted(out, st);
}

}  // namespace

std::string example_spec(const std::string& name) {
    const std::string want = name.size() > 5 && name.compare(name.size() - 5, 5, ".toml") == 0
                                 ? name.substr(0, name.size() - 5) : name;
    for (const auto& f : lessons::embedded_examples())
        if (name_of(f) == want) return std::string(f.text);
    throw attn::error("no example '" + name + "'" + io::hint_suffix(want, example_names()) +
                                "; `attn examples` lists them");
}

void setup_examples(CLI::App& app) {
    auto name = std::make_shared<std::string>();
    auto layout = std::make_shared<layout_options>();
    auto* sub = app.add_subcommand("examples", "List the trace examples built into attn, or print one (a spec to start from)");
    sub->add_option("NAME", *name, "The example to print (see the list); `attn trace --example NAME` runs it");
    add_layout_options(*sub, *layout, false);
    sub->callback([name, layout] {
        if (name->empty()) return list_examples(make_style(*layout));
        std::cout << example_spec(*name);
    });
}

}  // namespace attn::cli
