// grade/variant.hpp — the numbers one student gets for one exercise.
//
// seed = the first 8 bytes (little-endian) of BLAKE2b keyed with the course secret
// (core/keyed_hash.hpp) over ("attn-variant-seed-v2", exercise id, normalised student
// id); the project's PRNG (core/prng.hpp) draws the numbers from it, so the same student
// gets the same numbers on every compiler. Students are shown only a 6-character
// variant code (another keyed hash): nothing a student sees lets anyone compute a
// seed or another student's numbers without the secret. `--seed` is accepted only
// together with the secret (a teacher regrading).
//
// Without a secret (self-study), or without a student, a numeric exercise that varies
// gives the *practice variant*: numbers from a public key, the same for everyone,
// labelled as practice, never any class's numbers (a different hash domain).
// The course secret and how it is read: grade/secret.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "grade/exercise.hpp"
#include "grade/pipeline.hpp"
#include "grade/secret.hpp"

namespace attn::grade {

class variant_memo;

struct variant_request {
    std::string student;               // "" = nobody (practice numbers)
    std::string secret;                // the course secret ("" = none given)
    bool lesson_numbers = false;       // --no-variants: everyone gets the lesson's numbers
    std::optional<std::uint64_t> seed; // --seed: regenerate a variant directly (needs the secret)
    bool practice_ok = true;           // false (--class, --gradescope): no secret is an error, never practice
    const variant_memo* memo = nullptr; // a class's draw counts, learnt once (below), or none
};

// How a variant was drawn: the draws rejected before the one kept (a catalogued mistake or
// a placeholder was right: variant_check.hpp), and whether the kept one passed that check
// (false only if all 64 draws failed; a test asserts it never happens).
struct variant_draws {
    int redraws = 0;
    bool distinguishable = true;
};

struct exercise_numbers : variant_draws {
    std::string student;        // normalised
    bool personal = false;      // true when drawn for a student from the secret
    bool practice = false;      // true for the public practice variant
    std::uint64_t seed = 0;     // teacher-side only: never printed where a student reads
    std::string code;           // "K7QX2M" (personal) or "practice"; "" for the lesson's numbers
    std::string parameters;     // "q, k, v: halves in [-2, 2]"
    pipeline_inputs inputs;
    std::vector<std::string> query_tokens, key_tokens;
};

// Trim ASCII whitespace, lower-case ASCII letters: " Alice\r" and "alice" are one student.
std::string normalize_student_id(const std::string& id);

std::uint64_t variant_seed(const std::string& secret, const std::string& student, const std::string& exercise_id);
std::string variant_code(const std::string& secret, const std::string& student, const std::string& exercise_id);

// The inputs of a numeric exercise for this request. Throws variant_error when the
// exercise varies per student and the request cannot be served (no secret with
// practice_ok false, or --seed without the secret).
exercise_numbers numbers_for(const exercise& x, const variant_request& request);

// A class's draw counts, learnt once.
// Drawing a student's numbers is cheap; checking a draw is not: every catalogued mistake
// is computed to be sure none gives the right answer (variant_check.hpp), and a draw
// that fails is redrawn. A class grader needs each student's numbers two or three times
// (the copy index, the grading, the copy check), so it learns each variant's draw count
// once, on every core, and numbers_for then replays the same PRNG stream that many draws
// without checking again: the same numbers, bit for bit (variant.cpp).
class variant_memo {
public:
    // Every student's variant of x under secret, checked once (on every core); each(i,
    // numbers), when given, also sees student i's numbers there (the copy index reads its
    // right answers from them instead of drawing them again). Called on any thread.
    using learnt_numbers = std::function<void(std::size_t, const exercise_numbers&)>;
    void learn(const exercise& x, const std::string& secret, const std::vector<std::string>& students,
               const learnt_numbers& each = {});
    // What was learnt for this exercise and seed; nullopt when it was not (then the draw is checked as usual).
    std::optional<variant_draws> find(const std::string& exercise_id, std::uint64_t seed) const;

private:
    struct table {
        std::vector<std::uint64_t> seeds;  // [students] sorted
        std::vector<std::uint8_t> draws;   // [students] redraws, bit 7 set when not distinguishable
        std::vector<std::string> checked;  // the exercise and its same_input partners, sorted: whose checks decided the draws
    };
    // Lessons 20–22: a same_input partner's table when it holds x's draws too (variant.cpp).
    const table* partner_table(const exercise& x, const std::vector<std::string>& checked) const;
    std::map<std::string, table> by_exercise_;
};

}  // namespace attn::grade
