// cli/shapes.cpp — `attn shapes TABLE [--B 2 --n_tgt 3 ...]`: the shape of every
// tensor of a cross-attention, multi-head, encoder or decoder block (seed 004 Q1–Q2,
// seed 001), symbolic, or with numbers plugged in when every symbol has a value.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/layout.hpp"
#include "core/error.hpp"
#include "io/terminal_safe.hpp"
#include "cli/verbs.hpp"
#include "core/shapes.hpp"
#include "trace/shape_table.hpp"

namespace attn::cli {

namespace {

struct shapes_options {
    std::string table;
    bool list = false;
    layout_options layout;
    std::map<std::string, std::int64_t> values;  // only the symbols given on the command line
};

const char* const symbol_flags[] = {"B", "n", "n_tgt", "n_src", "d", "d_q", "d_v", "d_ff", "H", "G", "d_head", "L"};

void run_shapes(const shapes_options& o) {
    if (o.list || o.table.empty()) {
        for (const auto& p : trace::shape_presets()) {
            std::string syms;
            for (const auto& s : trace::shape_symbols(p)) syms += (syms.empty() ? "" : " ") + ("--" + s);
            std::cout << p << "  (numbers: " << syms << ")\n";
        }
        if (!o.list) throw exit_request{2};
        return;
    }
    const trace::style st = make_style(o.layout);
    symbol_values values(o.values.begin(), o.values.end());
    // The usual choice when only H is given: each head gets d/H of the model width.
    const auto used = trace::shape_symbols(o.table);
    auto uses = [&](const char* s) { return std::find(used.begin(), used.end(), s) != used.end(); };
    if (values.count("d") && values.count("H") && uses("d_q")) {
        const auto d = values["d"], h = values["H"];
        if ((!values.count("d_q") || !values.count("d_v")) && d % h != 0)
            throw attn::error("--d " + std::to_string(d) + " is not divisible by --H " + std::to_string(h) +
                                        ": give --d_q and --d_v");
        for (const char* s : {"d_q", "d_v"})
            if (!values.count(s)) {
                values[s] = d / h;
                std::cout << s << " = d/H = " << d / h << "\n";
            }
    }
    if (!values.empty()) {
        std::string missing;
        for (const auto& s : trace::shape_symbols(o.table))
            if (!values.count(s)) missing += (missing.empty() ? "" : ", ") + ("--" + s);
        if (!missing.empty())
            throw attn::error("shapes " + o.table + ": give every symbol a value or none; missing " + missing);
        std::string unused;
        for (const auto& [k, v] : values)
            if (k != "H" && std::find(used.begin(), used.end(), k) == used.end()) unused += (unused.empty() ? "" : ", ") + ("--" + k);
        if (!unused.empty())
            throw attn::error("shapes " + o.table + " does not use " + unused);
    }
    print_fitted(trace::render_shape_table(o.table, values, st), st);
}

// A symbol's value: 1 … 2^63 − 1 written in digits, the range named when refused (CLI11's
// PositiveNumber printed a 309-digit bound, and a larger value was clamped to 2^63 − 1).
CLI::Validator whole_number_check() {
    return CLI::Validator(
        [](const std::string& s) -> std::string {
            const std::string max = "9223372036854775807";
            const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
            const std::string v = digits ? s.substr(std::min(s.find_first_not_of('0'), s.size())) : s;
            if (digits && !v.empty() && (v.size() < max.size() || (v.size() == max.size() && v <= max))) return "";
            return "expected a whole number from 1 to " + max + ", found '" + io::terminal_safe(s) + "'";
        },
        "N");
}

}  // namespace

void setup_shapes(CLI::App& app) {
    auto opt = std::make_shared<shapes_options>();
    auto* sub = app.add_subcommand("shapes", "Shape tables of attention blocks, symbolic or with numbers");
    sub->add_option("TABLE", opt->table, "Which table: " + trace::shape_preset_help())
        ->check(CLI::IsMember(trace::shape_presets()));
    sub->add_flag("--list", opt->list, "List the tables and the numbers each one takes");
    add_layout_options(*sub, opt->layout);
    for (const char* s : symbol_flags) {
        const std::string name = s;
        sub->add_option_function<std::int64_t>(
               "--" + name, [opt, name](std::int64_t v) { opt->values[name] = v; },
               "Value of " + name + " (a whole number from 1 to 9223372036854775807)")
            ->check(whole_number_check());
    }
    sub->footer("Example: attn shapes cross --B 2 --n_tgt 3 --n_src 5 --d 8 --d_q 4 --d_v 4");
    sub->callback([opt] { run_shapes(*opt); });
}

}  // namespace attn::cli
