// grade/secret.hpp — the course secret's strength and encoding.
//
// Students see a 6-character variant code (a keyed hash of their id under the secret):
// with a guessable secret that code is an offline oracle (a dictionary word and a year
// fell after 633 guesses, and then every classmate's numbers follow). So a secret is
// refused unless it is long and unpredictable, estimated conservatively: a run of three
// or more letters counts as one dictionary word (16 bits) whatever its length, a digit
// 3.3 bits, a lone letter 4.7 (5.7 in mixed case), any other byte 5 bits. A teacher who
// must keep a weak secret says so with --guessable-secret-ok (or
// ATTN_ALLOW_GUESSABLE_SECRET=1), which names the risk. `attn course secret` writes a
// 256-bit random one. A secret file is bytes: UTF-16, a byte-order mark or a NUL byte
// is refused with a clear error, never read as other bytes.
#pragma once

#include <cstddef>
#include <string>

namespace attn::grade {

constexpr double min_secret_bits = 80.0;  // estimated, conservatively (above)
constexpr std::size_t generated_secret_bytes = 32;  // 256 random bits

// "" when the secret is strong enough (core/keyed_hash.hpp's secret_strength_bits),
// else why not (for the error message). A secret file's bytes are checked by
// core/keyed_hash.hpp's secret_encoding_problem.
std::string secret_weakness(const std::string& secret);

// A new secret: generated_secret_bytes of libsodium's random bytes, as lowercase hex.
std::string new_secret();

}  // namespace attn::grade
