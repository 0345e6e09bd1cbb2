// cli/layout.hpp — the options every verb shares for what it prints on the
// terminal: --width N (else the terminal's width, else $COLUMNS, else 80),
// --full (long vectors and wide tables whole) and --color.
#pragma once

#include <cstddef>
#include <string>

#include "trace/style.hpp"

namespace CLI {
class App;
}

namespace attn::cli {

struct layout_options {
    std::size_t width = 0;  // 0: the terminal's, else $COLUMNS, else 80
    bool full = false;
    std::string color = "auto";
};

// Adds --width and --full (and --color unless with_color is false) to a verb.
void add_layout_options(CLI::App& sub, layout_options& o, bool with_color = true);

// Adds --width alone, to a verb whose output is not tables (answer-file templates,
// tokenizer ids, training progress, the course secret's note): every verb takes it.
// Without it their lines stay whole (they are data a script may read).
void add_width_option(CLI::App& sub, std::size_t& width);

// The style those options ask for: colour resolved, width resolved.
trace::style make_style(const layout_options& o);

// Text written to stdout with every line fitted to the style's width.
void print_fitted(const std::string& text, const trace::style& st);

}  // namespace attn::cli
