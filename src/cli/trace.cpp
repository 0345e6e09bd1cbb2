// cli/trace.cpp — `attn trace SPEC.toml [--query T] [--head H] [--batch B]
// [--stage S]... [--heatmap S|none]... [--json FILE|-] [--npy DIR] [--csv DIR]
// [--html FILE] [--color auto|always|never]`: one attention computation on the
// user's own matrices. Parsing only; the io and trace libraries do the work.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/layout.hpp"
#include "cli/verbs.hpp"
#include "io/trace_spec.hpp"
#include "trace/export.hpp"
#include "trace/file_write.hpp"
#include "trace/heatmap.hpp"
#include "trace/html_report.hpp"
#include "trace/trace_report.hpp"

namespace attn::cli {

namespace {

struct trace_options {
    std::string spec;
    std::string query;
    int head = -1, batch = -1;
    std::vector<std::string> stages, heatmaps;
    std::string json, npy, csv, html;
    layout_options layout;
    bool list_stages = false;
};

trace::stage stage_arg(const std::string& name, const char* flag) {
    auto s = trace::parse_stage(name);
    if (!s)
        throw CLI::ValidationError(flag, "unknown stage '" + name + "'; the stages are: " + trace::stage_name_list());
    return *s;
}

void run_trace_verb(const trace_options& o) {
    if (o.list_stages) {
        std::cout << trace::stage_markdown_table();
        return;
    }
    if (o.spec.empty()) throw CLI::RequiredError("SPEC");
    const io::trace_spec spec = io::load_trace_spec(o.spec);
    const trace::trace_run run = trace::run_trace(io::resolve_trace_inputs(spec));

    trace::report_options ro;
    ro.st = make_style(o.layout);
    ro.truecolor = trace::heatmap_style_for(ro.st.color).truecolor;
    if (o.batch >= 0) ro.batch = static_cast<std::size_t>(o.batch);
    if (o.head >= 0) ro.head = static_cast<std::size_t>(o.head);
    if (!o.query.empty()) ro.query = o.query;
    for (const auto& s : o.stages) ro.tables.push_back(stage_arg(s, "--stage"));
    if (!o.heatmaps.empty()) {
        ro.heatmaps.clear();
        for (const auto& s : o.heatmaps)
            if (s != "none") ro.heatmaps.push_back(stage_arg(s, "--heatmap"));
    }

    // Everything is rendered before anything is written: a bad --query or --head
    // fails with no file touched.
    const bool exporting = !o.json.empty() || !o.npy.empty() || !o.csv.empty() || !o.html.empty();
    const std::string report = trace::render_trace_report(run, ro);  // also checks --query/--head/--batch
    const std::string json = o.json.empty() ? "" : trace::to_json(run);
    const std::string html = o.html.empty() ? "" : trace::html_report(run, ro);
    std::map<std::string, std::string> npy, csv;
    if (!o.npy.empty()) npy = trace::npy_files(run);
    if (!o.csv.empty()) csv = trace::csv_files(run);

    if (!o.npy.empty()) trace::write_directory_atomically(o.npy, npy);
    if (!o.csv.empty()) trace::write_directory_atomically(o.csv, csv);
    if (!o.html.empty()) trace::write_file_atomically(o.html, html);
    if (!o.json.empty() && o.json != "-") trace::write_file_atomically(o.json, json);
    if (!o.npy.empty()) std::cerr << "attn trace: wrote " << npy.size() << " .npy files to " << o.npy << "\n";
    if (!o.csv.empty()) std::cerr << "attn trace: wrote " << csv.size() << " .csv files to " << o.csv << "\n";
    if (!o.html.empty()) std::cerr << "attn trace: wrote " << o.html << "\n";
    if (!o.json.empty() && o.json != "-") std::cerr << "attn trace: wrote " << o.json << "\n";
    if (o.json == "-") std::cout << json;
    if (!exporting) print_fitted(report, ro.st);
}

}  // namespace

void setup_trace(CLI::App& app) {
    auto o = std::make_shared<trace_options>();
    auto* sub = app.add_subcommand("trace", "Trace one attention computation on your own matrices (a spec file)");
    sub->add_option("SPEC", o->spec, "Spec file (TOML): kind, tokens, Q/K/V or X with W_Q/W_K/W_V — see README");
    sub->add_flag("--list-stages", o->list_stages, "Print the stage vocabulary (name, axes, what) and exit");
    sub->add_option("--query", o->query, "Per-token trace of this query (its token or 0-based index)");
    sub->add_option("--head", o->head, "Only this head (0-based)")->check(CLI::NonNegativeNumber);
    sub->add_option("--batch", o->batch, "Only this batch item (0-based)")->check(CLI::NonNegativeNumber);
    sub->add_option("--stage", o->stages, "Print only these stage tables (hook name or alias; repeatable)");
    sub->add_option("--heatmap", o->heatmaps, "Heatmaps of these score stages (default: weights; 'none' for none)");
    sub->add_option("--json", o->json, "Write every stage as JSON to FILE, or '-' for stdout");
    sub->add_option("--npy", o->npy, "Write one .npy per stage into DIR");
    sub->add_option("--csv", o->csv, "Write one .csv per 2-D slice of each stage into DIR");
    sub->add_option("--html", o->html, "Write a self-contained HTML report to FILE");
    add_layout_options(*sub, o->layout);
    sub->callback([o] { run_trace_verb(*o); });
}

}  // namespace attn::cli
