// grade/secret.cpp — see secret.hpp.
#include "grade/secret.hpp"

#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <sodium.h>

#include "core/internal_error.hpp"

namespace attn::grade {

namespace {

bool letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool digit(unsigned char c) { return c >= '0' && c <= '9'; }

}  // namespace

double secret_strength_bits(const std::string& s) {
    bool lower = false, upper = false;
    for (unsigned char c : s) {
        lower = lower || (c >= 'a' && c <= 'z');
        upper = upper || (c >= 'A' && c <= 'Z');
    }
    const double one_letter = lower && upper ? 5.7 : 4.7;
    double bits = 0.0;
    std::set<std::string> words;  // a word said twice adds nothing
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t j = i + 1;
        if (letter(c)) {
            while (j < s.size() && letter(static_cast<unsigned char>(s[j]))) ++j;
            if (j - i >= 3) bits += words.insert(s.substr(i, j - i)).second ? 16.0 : 0.0;
            else bits += static_cast<double>(j - i) * one_letter;
        } else {
            bits += digit(c) ? std::log2(10.0) : 5.0;
        }
        i = j;
    }
    return bits;
}

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

std::string secret_encoding_problem(const std::string& text) {
    auto starts = [&](const char* bom, std::size_t n) { return text.size() >= n && text.compare(0, n, bom, n) == 0; };
    if (starts("\xFF\xFE", 2) || starts("\xFE\xFF", 2))
        return fmt::format("it is UTF-16 (it starts with the byte-order mark {}); save it as plain text (ASCII or UTF-8)",
                           text[0] == '\xFF' ? "FF FE" : "FE FF");
    if (starts("\xEF\xBB\xBF", 3))
        return "it starts with a UTF-8 byte-order mark (EF BB BF), which would become part of the secret; save it without one";
    const auto nul = text.find('\0');
    if (nul != std::string::npos)
        return fmt::format("it holds a NUL byte at offset {} (UTF-16 without a byte-order mark?); save it as plain text", nul);
    return "";
}

std::string new_secret() {
    if (sodium_init() < 0) throw internal_error("libsodium could not be initialised");
    unsigned char bytes[generated_secret_bytes];
    randombytes_buf(bytes, sizeof bytes);
    std::string out;
    for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
    sodium_memzero(bytes, sizeof bytes);
    return out;
}

}  // namespace attn::grade
