// grade/json_read.hpp — a small strict JSON reader that remembers line:column of
// every value. nlohmann::json (3.11) keeps no positions, and a student whose
// answer is a string where a number belongs deserves the exact place.
#pragma once

#include <string>

#include "grade/answer_value.hpp"

namespace attn::grade {

// Parses text (RFC 8259, plus the strings "nan", "inf", "-inf" standing for those
// numbers where a number is expected — the grader reads them, JSON cannot spell them).
// Throws submission_error (see submission.hpp) with file:line:col on any syntax error.
// Nesting deeper than 64 levels is refused rather than recursed into.
answer_value parse_json_answer(const std::string& text, const std::string& file);

}  // namespace attn::grade
