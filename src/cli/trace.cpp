// cli/trace.cpp — `attn trace SPEC.toml [--query T] [--head H] [--batch B]
// [--stage S]... [--heatmap S|none]... [--json FILE|-] [--npy DIR] [--csv DIR]
// [--html FILE] [--dtype float64|float32] [--full] [--color auto|always|never]
// [--list-stages]`: one attention computation on the user's own matrices, on the
// core's fast path. Parsing only; the io and trace libraries do the work. With an
// export no terminal report is built; with --query alone only that query's row is kept.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/layout.hpp"
#include "core/error.hpp"
#include "cli/verbs.hpp"
#include "io/output_writer.hpp"
#include "io/size_budget.hpp"
#include "cli/examples.hpp"
#include "io/terminal_safe.hpp"
#include "io/trace_spec.hpp"
#include "trace/export.hpp"
#include "trace/heatmap.hpp"
#include "trace/html_report.hpp"
#include "trace/trace_report.hpp"
#include "trace/overflow_check.hpp"

namespace attn::cli {

namespace {

struct trace_options {
    std::string spec;
    std::string example;  // --example NAME: a spec built into attn (cli/examples.hpp)
    std::string query;
    int head = -1, batch = -1;
    std::vector<std::string> stages, heatmaps;
    std::string json, npy, csv, html;
    layout_options layout;
    std::string dtype = "float64";
    bool list_stages = false;
    std::size_t max_elements = io::default_max_elements;
};

stage stage_arg(const std::string& name, const char* flag) {
    auto s = parse_stage(name);
    if (!s)
        throw attn::error(attn::source_pos{flag}, "unknown stage '" + name + "'; the stages are: " + stage_name_list());
    return *s;
}

trace::report_options report_options_of(const trace_options& o) {
    trace::report_options ro;
    ro.st = make_style(o.layout);
    ro.truecolor = trace::heatmap_style_for(ro.st.color).truecolor;
    if (o.batch >= 0) ro.batch = static_cast<std::size_t>(o.batch);
    if (o.head >= 1) ro.head = static_cast<std::size_t>(o.head - 1);  // given from 1, as the lessons count heads
    if (!o.query.empty()) ro.query = o.query;
    for (const auto& s : o.stages) ro.tables.push_back(stage_arg(s, "--stage"));
    if (!o.heatmaps.empty()) {
        ro.heatmaps.clear();
        for (const auto& s : o.heatmaps)
            if (s != "none") ro.heatmaps.push_back(stage_arg(s, "--heatmap"));
    }
    return ro;
}

// Every export is staged (written under temporary names) and committed only when all
// of them are complete: a failure leaves none of them behind.
void write_exports(const trace::trace_run& run, const trace_options& o, const trace::report_options& ro) {
    std::unique_ptr<io::staged_directory> npy, csv;
    std::unique_ptr<io::staged_file> html, json;
    if (!o.npy.empty()) {
        npy = std::make_unique<io::staged_directory>(o.npy);
        trace::write_npy_files(run, *npy);
    }
    if (!o.csv.empty()) {
        csv = std::make_unique<io::staged_directory>(o.csv);
        trace::write_csv_files(run, *csv);
    }
    if (!o.html.empty()) {
        html = std::make_unique<io::staged_file>(o.html);
        html->write(trace::html_report(run, ro));
    }
    if (!o.json.empty() && !io::is_stdout(o.json)) {
        json = std::make_unique<io::staged_file>(o.json);
        trace::write_json(run, [&](const char* p, std::size_t n) { json->write(p, n); });
    }
    if (npy) npy->commit(), std::cerr << "attn trace: wrote " << npy->files() << " .npy files to " << io::terminal_safe(o.npy) << "\n";
    if (csv) csv->commit(), std::cerr << "attn trace: wrote " << csv->files() << " .csv files to " << io::terminal_safe(o.csv) << "\n";
    if (html) html->commit(), std::cerr << "attn trace: wrote " << io::terminal_safe(o.html) << "\n";
    if (json) json->commit(), std::cerr << "attn trace: wrote " << io::terminal_safe(o.json) << "\n";
    if (io::is_stdout(o.json)) {  // last, after the files: standard output through the one writer
        io::staged_file out("-");
        trace::write_json(run, [&](const char* p, std::size_t n) { out.write(p, n); });
        out.commit();
    }
}

void run_trace_verb(const trace_options& o) {
    if (o.list_stages) {
        std::cout << trace::stage_markdown_table();
        return;
    }
    if (o.spec.empty() && o.example.empty()) throw attn::error("SPEC (or --example NAME) is required");
    if (!o.spec.empty() && !o.example.empty())
        throw attn::error("give a spec file or --example NAME, not both");
    const trace::report_options ro = report_options_of(o);  // unknown stage names fail here, before any work
    io::set_max_elements(o.max_elements);
    const io::trace_spec spec = o.example.empty() ? io::load_trace_spec(o.spec)
                                                  : io::parse_trace_spec(example_spec(o.example), o.example + ".toml");
    const io::trace_inputs in = io::resolve_trace_inputs(spec);  // checks the element budget
    if (!o.html.empty())  // before computing: a page past the cell limit is refused at once
        io::check_html_cells(o.batch >= 0 ? 1 : in.batch, o.head >= 1 ? 1 : in.heads, in.n_q, in.n_k);

    // Exports write every stage; the terminal report of one query needs that query's row only.
    const bool exporting = !o.json.empty() || !o.npy.empty() || !o.csv.empty() || !o.html.empty();
    trace::trace_run_options to;
    to.dtype = o.dtype == "float32" ? trace::trace_dtype::float32 : trace::trace_dtype::float64;
    if (ro.query && !exporting && !trace::needs_extras(in)) {
        trace::run_labels labels;
        labels.query_tokens = in.query_tokens;
        to.one_query = trace::find_query_row(labels, *ro.query);
    }
    const trace::trace_run run = trace::run_trace(in, to);
    trace::require_finite_stages(run, spec.root);  // overflow from finite inputs: exit 2, never "blocked"
    trace::check_report_options(run, ro);  // --batch, --head, --query, --stage: before any file is touched

    if (exporting) write_exports(run, o, ro);
    else print_fitted(trace::render_trace_report(run, ro), ro.st);
}

}  // namespace

void setup_trace(CLI::App& app) {
    auto o = std::make_shared<trace_options>();
    auto* sub = app.add_subcommand("trace", "Trace one attention computation on your own matrices (a spec file)");
    sub->add_option("SPEC", o->spec, "Spec file (TOML): kind, tokens, Q/K/V or X with W_Q/W_K/W_V (docs/trace.md, \"Spec file\")");
    sub->add_flag("--list-stages", o->list_stages, "Print the stage vocabulary (name, axes, what) and exit");
    sub->add_option("--example", o->example, "Trace an example built into attn instead of a spec file (`attn examples` lists them)");
    sub->add_option("--query", o->query, "Per-token trace of this query (its token or 0-based index)");
    sub->add_option("--head", o->head, "Only this head, counted from 1 as in the lessons")->check(CLI::Range(1, 1 << 20));
    sub->add_option("--batch", o->batch, "Only this batch item (0-based)")->check(CLI::NonNegativeNumber);
    sub->add_option("--stage", o->stages, "Print only these stage tables (hook name or alias; repeatable)");
    sub->add_option("--heatmap", o->heatmaps, "Heatmaps of these score stages (default: weights; 'none' for none)");
    sub->add_option("--json", o->json, "Write every stage as JSON to FILE, or '-' for stdout");
    sub->add_option("--npy", o->npy, "Write one .npy per stage into DIR");
    sub->add_option("--csv", o->csv, "Write one .csv per 2-D slice of each stage into DIR");
    sub->add_option("--html", o->html, "Write a self-contained HTML report to FILE");
    sub->add_option("--max-elements", o->max_elements,
                    "Largest number of values one input or the score stages may hold (default 268435456 = 2^28)")
        ->check(CLI::PositiveNumber);
    sub->add_option("--dtype", o->dtype, "Compute in float64 (default) or float32; exports keep that dtype")
        ->check(CLI::IsMember({"float64", "float32"}));
    add_layout_options(*sub, o->layout);
    sub->callback([o] { run_trace_verb(*o); });
}

}  // namespace attn::cli
