// tests/support/text_checks.hpp — small helpers for checking what attn prints or throws:
// a text's lines, and the message of the error a call throws.
#pragma once

#include <exception>
#include <sstream>
#include <string>
#include <vector>

namespace attn::testing {

// The lines of `text` without their '\n' (a last line without one counts too).
inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// The message of the E that f() throws, or "(no error)"; any other exception passes through.
template <class E = std::exception, class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace attn::testing
