// core/keyed_hash.hpp — the one place attn touches cryptography: libsodium's keyed
// BLAKE2b (crypto_generichash) over a secret, and its random bytes. The grader's
// per-student seeds, the variant codes students see and the secret's fingerprint are
// all outputs of this hash with different domain labels, so none of them can be
// computed from another without the secret (a reversible mix, as the old seed was,
// let one seed give away every other).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

// BLAKE2b-256 of the secret (unkeyed): the 32-byte key every keyed hash below uses, so
// secrets of any length work (libsodium keys are 16–64 bytes).
std::array<unsigned char, 32> course_key(const std::string& secret);

// BLAKE2b keyed with `key` over the fields joined by NUL bytes (a field never contains
// NUL: ids and labels are text), `out_len` bytes (16–64).
std::vector<unsigned char> keyed_hash(const std::array<unsigned char, 32>& key, const std::vector<std::string>& fields,
                                      std::size_t out_len = 32);

// The first 8 bytes of a hash as a little-endian number.
std::uint64_t first_u64(const std::vector<unsigned char>& h);

// RFC 4648 base32 (A–Z, 2–7) of the first `chars` × 5 bits.
std::string base32(const std::vector<unsigned char>& h, std::size_t chars);

// A secret's unpredictability in bits, estimated conservatively: a run of letters is cut
// into its CamelCase pieces, and a piece that could be a word (three letters or more, a
// vowel, no four consonants in a row) counts as one dictionary word (16 bits, at most
// its letters' worth) whatever its length; other letters 4.7 bits (5.7 in mixed case),
// a digit 3.3 bits, any other byte 5 bits. Random base64 and hex score as random: 24
// random bytes in base64 (`head -c 24 /dev/urandom | base64`) above 85 bits.
double secret_strength_bits(const std::string& secret);

// "" when the text is usable as a secret file's bytes, else what is wrong with it
// ("it is UTF-16 (it starts with the byte-order mark FF FE) …"): a secret is bytes, and
// a file saved as UTF-16 or with a byte-order mark would silently be other bytes.
std::string secret_encoding_problem(const std::string& text);

// "K3QF-7XZA": a short fingerprint of the secret, so a teacher can see that the hand-out
// and the autograder use the same one ("" for no secret).
std::string secret_fingerprint(const std::string& secret);

// `bytes` from libsodium's randombytes, as lowercase hex (wiped from memory after).
std::string random_hex(std::size_t bytes);

// Keyed BLAKE2b over bytes fed in pieces, 16 bytes out: what an export folder's
// manifest records of each file attn wrote, so that a line only the key's owner can
// compute vouches for a file. Copyable (hex() finishes a copy, the stream goes on).
class keyed_stream {
public:
    explicit keyed_stream(const std::array<unsigned char, 32>& key);
    void add(const void* data, std::size_t bytes);
    std::string hex() const;  // 32 lowercase hex digits

private:
    alignas(64) unsigned char state_[512];  // libsodium's crypto_generichash_state
};

}  // namespace attn
