// grade/secret.cpp — see secret.hpp.
#include "grade/secret.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "core/keyed_hash.hpp"
#include "io/input_read.hpp"
#include "io/text_fold.hpp"

namespace attn::grade {

namespace {

// Refuses a secret that is guessable, unless the teacher accepts the risk.
std::string checked_secret(std::string s, const std::string& from, bool guessable_ok) {
    const char* env = std::getenv("ATTN_ALLOW_GUESSABLE_SECRET");
    if (s.empty() || guessable_ok || (env && std::string(env) == "1")) return s;
    const double bits = secret_strength_bits(s);
    if (bits >= min_secret_bits) return s;
    throw variant_error(fmt::format(
        "{}: the course secret is guessable ({} characters, about {:.0f} bits by a conservative estimate; at least "
        "{:.0f} are needed): the 6-character variant code each student sees lets anyone test guesses offline, and a "
        "found secret gives away every student's numbers. Make a strong one with `attn course secret FILE`, or keep "
        "this one with --guessable-secret-ok (or ATTN_ALLOW_GUESSABLE_SECRET=1) if you accept that risk",
        from, s.size(), bits, min_secret_bits));
}

}  // namespace

std::string secret_from_text(const std::string& text) { return io::trimmed(text.substr(0, text.find('\n'))); }

std::string course_secret(const std::string& secret_file, bool guessable_ok) {
    if (!secret_file.empty()) {
        io::input_limits limits;
        limits.max_bytes = 64 * 1024;  // a secret is one line
        limits.what = "course secret file";
        const std::string text = io::read_input_file(secret_file, limits);
        const std::string bad = secret_encoding_problem(text);
        if (!bad.empty()) throw variant_error("the course secret file " + secret_file + " cannot be used: " + bad);
        const std::string s = secret_from_text(text);
        if (s.empty()) throw variant_error("the course secret file " + secret_file + " is empty (its first line is the secret)");
        return checked_secret(s, "the course secret file " + secret_file, guessable_ok);
    }
    const char* env = std::getenv("ATTN_COURSE_SECRET");
    return env ? checked_secret(secret_from_text(env), "ATTN_COURSE_SECRET", guessable_ok) : std::string();
}

std::string new_secret() { return random_hex(generated_secret_bytes); }

}  // namespace attn::grade
