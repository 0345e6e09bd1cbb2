// trace/style.cpp — see style.hpp.
#include "trace/style.hpp"
#include "core/error.hpp"

#include <cstdlib>
#include <stdexcept>

#include <unistd.h>

namespace attn::trace {

bool resolve_color(color_mode mode) {
    if (mode == color_mode::always) return true;
    if (mode == color_mode::never) return false;
    const char* no_color = std::getenv("NO_COLOR");
    if (no_color && *no_color) return false;
    return isatty(STDOUT_FILENO) != 0;
}

color_mode parse_color_mode(const std::string& text) {
    if (text == "auto") return color_mode::auto_detect;
    if (text == "always") return color_mode::always;
    if (text == "never") return color_mode::never;
    throw attn::error("--color expects auto, always or never, found '" + text + "'");
}

namespace {
std::string wrap(bool on, const char* code, const std::string& s) {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
}
}  // namespace

std::string style::heading(const std::string& s) const { return wrap(color, "1", s); }
std::string style::label(const std::string& s) const { return wrap(color, "36", s); }
std::string style::emphasis(const std::string& s) const { return wrap(color, "1;33", s); }
std::string style::muted(const std::string& s) const { return wrap(color, "2", s); }
std::string style::good(const std::string& s) const { return wrap(color, "32", s); }
std::string style::bad(const std::string& s) const { return wrap(color, "31", s); }

}  // namespace attn::trace
