// cli/layout.cpp — see layout.hpp.
#include "cli/layout.hpp"

#include <iostream>

#include <CLI/CLI.hpp>

#include "trace/text_width.hpp"

namespace attn::cli {

void add_layout_options(CLI::App& sub, layout_options& o, bool with_color) {
    sub.add_option("--width", o.width, "Fit the output to N columns (default: the terminal's, else $COLUMNS, else 80)")
        ->check(CLI::Range(20, 1000));
    sub.add_flag("--full", o.full, "Show long vectors and wide tables whole instead of their ends around …");
    if (with_color)
        sub.add_option("--color", o.color, "Colour: auto (terminal and no NO_COLOR), always, never")
            ->check(CLI::IsMember({"auto", "always", "never"}));
}

void add_width_option(CLI::App& sub, std::size_t& width) {
    sub.add_option("--width", width, "Fit the text to N columns (default: lines kept whole, as data)")
        ->check(CLI::Range(20, 1000));
}

trace::style make_style(const layout_options& o) {
    trace::style st{trace::resolve_color(trace::parse_color_mode(o.color))};
    st.width = trace::output_width(o.width);
    st.full = o.full;
    return st;
}

void print_fitted(const std::string& text, const trace::style& st) { std::cout << trace::fit_lines(text, st.width); }

}  // namespace attn::cli
