// trace/style.hpp — colour that is only ever decoration. With colour off the
// output is plain text, byte for byte what the goldens pin.
#pragma once

#include <cstddef>
#include <string>

namespace attn::trace {

enum class color_mode { auto_detect, always, never };

// auto_detect: colour when stdout is a terminal and NO_COLOR is unset or empty.
// always/never: as asked (an explicit --color always wins over NO_COLOR).
bool resolve_color(color_mode mode);

// Parses "auto" | "always" | "never"; throws std::invalid_argument otherwise.
color_mode parse_color_mode(const std::string& text);

struct style {
    bool color = false;
    std::size_t width = 80;  // columns the output must fit (--width, the terminal, COLUMNS)
    bool full = false;       // --full: long vectors and wide tables shown whole, never elided
    std::string heading(const std::string& s) const;   // bold
    std::string label(const std::string& s) const;     // cyan
    std::string emphasis(const std::string& s) const;  // bold yellow
    std::string muted(const std::string& s) const;     // dim
    std::string good(const std::string& s) const;      // green
    std::string bad(const std::string& s) const;       // red
};

}  // namespace attn::trace
