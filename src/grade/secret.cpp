// grade/secret.cpp — see secret.hpp.
#include "grade/secret.hpp"

#include <fmt/format.h>

#include "core/keyed_hash.hpp"

namespace attn::grade {

std::string secret_weakness(const std::string& s) {
    const double bits = secret_strength_bits(s);
    if (bits >= min_secret_bits) return "";
    return fmt::format("the course secret is guessable ({} characters, about {:.0f} bits by a conservative estimate; "
                       "at least {:.0f} are needed): the 6-character variant code each student sees lets anyone test "
                       "guesses offline, and a found secret gives away every student's numbers. Make a strong one with "
                       "`attn course secret FILE`, or keep this one with --guessable-secret-ok (or "
                       "ATTN_ALLOW_GUESSABLE_SECRET=1) if you accept that risk",
                       s.size(), bits, min_secret_bits);
}

std::string new_secret() { return random_hex(generated_secret_bytes); }

}  // namespace attn::grade
