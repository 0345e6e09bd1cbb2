// grade/variant.hpp — the numbers one student gets for one exercise.
//
// seed = combine_seed({course secret, student id, exercise id}) (core/prng.hpp), so
// the same student always gets the same numbers on every compiler, two students get
// different ones, and nobody without the secret can compute another student's. The
// secret comes from --secret-file or ATTN_COURSE_SECRET, never from a submission.
// Values are "small integers and halves" (prng::pick_halves) or integers, so the
// hand computation stays tractable; every report records the seed and parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "grade/exercise.hpp"
#include "grade/pipeline.hpp"

namespace attn::grade {

// Refused: a variant was asked for without a course secret, or the secret file is unusable.
struct variant_error : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

struct variant_request {
    std::string student;               // "" = the lesson's own numbers
    std::string secret;                // the course secret ("" = none given)
    bool lesson_numbers = false;       // --no-variants: everyone gets the lesson's numbers
    std::optional<std::uint64_t> seed; // --seed: regenerate a recorded variant directly
};

struct exercise_numbers {
    std::string student;
    bool personal = false;      // true when drawn from a seed
    std::uint64_t seed = 0;
    std::string parameters;     // "q, k, v: halves in [-2, 2]"
    pipeline_inputs inputs;
    std::vector<std::string> query_tokens, key_tokens;
    std::string seed_hex() const;  // "0x1a2b…" (16 hex digits)
};

// The course secret: the file's first line (trimmed) if a file is given, else
// $ATTN_COURSE_SECRET, else "". Throws variant_error for an unreadable or empty file.
std::string course_secret(const std::string& secret_file);

std::uint64_t variant_seed(const std::string& secret, const std::string& student, const std::string& exercise_id);

// The inputs of a numeric exercise for this request. Throws variant_error when the
// exercise varies per student, a student is named and no secret (nor seed) is known.
exercise_numbers numbers_for(const exercise& x, const variant_request& request);

}  // namespace attn::grade
