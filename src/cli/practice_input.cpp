// cli/practice_input.cpp — a line typed at the answer prompt as an io::value_node (see
// practice.hpp): trimmed, then read by the exercise kind's own reader
// (io/typed_line.hpp says what each kind accepts).
#include "cli/practice.hpp"
#include "grade/kinds/kind.hpp"

namespace attn::cli {

namespace {

std::string trimmed(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

std::optional<io::value_node> answer_from_line(const std::string& line, const grade::exercise& x, std::string& error) {
    return x.kind->read_typed(trimmed(line), x.choices.size(), error);
}

}  // namespace attn::cli
