// grade/secret.hpp — the course secret: where it is read from, and how strong it must be.
//
// The secret comes from --secret-file or ATTN_COURSE_SECRET, read the same way (the
// first line, leading and trailing spaces, tabs, CR and LF trimmed), never from a
// submission. A secret file is bytes: UTF-16, a byte-order mark or a NUL byte is refused
// with a clear error, never read as other bytes.
//
// Students see a 6-character variant code (a keyed hash of their id under the secret):
// with a guessable secret that code is an offline oracle (a dictionary word and a year
// fell after 633 guesses, and then every classmate's numbers follow). So a secret is
// refused unless it is long and unpredictable, estimated conservatively by
// core/keyed_hash.hpp's secret_strength_bits. A teacher who must keep a weak secret says
// so with --guessable-secret-ok (or ATTN_ALLOW_GUESSABLE_SECRET=1), which names the
// risk. `attn course secret` writes a 256-bit random one.
#pragma once

#include <cstddef>
#include <string>

#include "core/error.hpp"

namespace attn::grade {

// Refused: a variant was asked for without a course secret, or the secret is unusable.
struct variant_error : error {
    using error::error;
};

constexpr double min_secret_bits = 80.0;  // estimated, conservatively (above)
constexpr std::size_t generated_secret_bytes = 32;  // 256 random bits

// The secret from a file's or the environment's text: its first line, trimmed.
std::string secret_from_text(const std::string& text);

// The course secret: from the file if given, else $ATTN_COURSE_SECRET, else "". Throws
// variant_error for an unreadable, empty or not plain-bytes file, and for a guessable
// secret unless guessable_ok (or ATTN_ALLOW_GUESSABLE_SECRET=1).
std::string course_secret(const std::string& secret_file, bool guessable_ok = false);

// A new secret: generated_secret_bytes of libsodium's random bytes, as lowercase hex.
std::string new_secret();

}  // namespace attn::grade
