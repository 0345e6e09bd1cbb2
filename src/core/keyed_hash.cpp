// core/keyed_hash.cpp — see keyed_hash.hpp.
#include "core/keyed_hash.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include <sodium.h>

#include "core/internal_error.hpp"

namespace attn {

namespace {

void ensure_sodium() {
    static const int ready = sodium_init();  // 0 first time, 1 already done, -1 failure
    if (ready < 0) throw internal_error("libsodium could not be initialised");
}

}  // namespace

std::array<unsigned char, 32> course_key(const std::string& secret) {
    ensure_sodium();
    std::array<unsigned char, 32> key{};
    crypto_generichash(key.data(), key.size(), reinterpret_cast<const unsigned char*>(secret.data()), secret.size(), nullptr, 0);
    return key;
}

std::vector<unsigned char> keyed_hash(const std::array<unsigned char, 32>& key, const std::vector<std::string>& fields,
                                      std::size_t out_len) {
    ensure_sodium();
    crypto_generichash_state st;
    crypto_generichash_init(&st, key.data(), key.size(), out_len);
    const unsigned char nul = 0;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i) crypto_generichash_update(&st, &nul, 1);
        crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(fields[i].data()), fields[i].size());
    }
    std::vector<unsigned char> out(out_len);
    crypto_generichash_final(&st, out.data(), out.size());
    return out;
}

std::uint64_t first_u64(const std::vector<unsigned char>& h) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | h.at(static_cast<std::size_t>(i));
    return v;
}

std::string base32(const std::vector<unsigned char>& h, std::size_t chars) {
    static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    std::string out;
    std::size_t bit = 0;
    for (std::size_t c = 0; c < chars; ++c, bit += 5) {
        unsigned v = 0;
        for (std::size_t b = 0; b < 5; ++b) {
            const std::size_t at = bit + b;
            v = (v << 1) | ((h.at(at / 8) >> (7 - at % 8)) & 1u);
        }
        out += alphabet[v];
    }
    return out;
}

namespace {

bool letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool digit(unsigned char c) { return c >= '0' && c <= '9'; }

// The end of the case piece of letters starting at i, before `end` (a run split as
// CamelCase is: "HTTPServer" -> "HTTP", "Server"; "aBcD" -> "a", "Bc", "D").
std::size_t piece_end(const std::string& s, std::size_t i, std::size_t end) {
    auto lower = [&](std::size_t k) { return k < end && s[k] >= 'a' && s[k] <= 'z'; };
    std::size_t j = i + 1;
    if (lower(i) || lower(j)) {
        while (lower(j)) ++j;
        return j;
    }
    while (j < end && !lower(j) && !lower(j + 1)) ++j;
    return j;
}

// Could a piece of letters be a dictionary word? Three letters or more, a vowel (y
// counted), and no four consonants in a row: random letters mostly fail it, words pass.
bool word_shaped(const std::string& piece) {
    if (piece.size() < 3) return false;
    bool vowel = false;
    std::size_t consonants = 0;
    for (char c : piece) {
        const bool v = std::strchr("aeiouy", c | 0x20) != nullptr;
        vowel = vowel || v;
        consonants = v ? 0 : consonants + 1;
        if (consonants >= 4) return false;
    }
    return vowel;
}

}  // namespace

double secret_strength_bits(const std::string& s) {
    bool lower = false, upper = false;
    for (unsigned char c : s) {
        lower = lower || (c >= 'a' && c <= 'z');
        upper = upper || (c >= 'A' && c <= 'Z');
    }
    const double one_letter = lower && upper ? 5.7 : 4.7;
    double bits = 0.0;
    std::set<std::string> words;  // a word said twice adds nothing, in any case
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t j = i + 1;
        if (!letter(c)) {
            bits += digit(c) ? std::log2(10.0) : 5.0;
            i = j;
            continue;
        }
        while (j < s.size() && letter(static_cast<unsigned char>(s[j]))) ++j;
        for (std::size_t k = i; k < j;) {
            const std::size_t e = piece_end(s, k, j);
            std::string piece = s.substr(k, e - k);
            const double as_letters = static_cast<double>(piece.size()) * one_letter;
            if (!word_shaped(piece)) bits += as_letters;
            else {
                for (char& ch : piece) ch = static_cast<char>(ch | 0x20);
                bits += words.insert(piece).second ? std::min(16.0, as_letters) : 0.0;
            }
            k = e;
        }
        i = j;
    }
    return bits;
}

std::string secret_encoding_problem(const std::string& text) {
    auto starts = [&](const char* bom, std::size_t n) { return text.size() >= n && text.compare(0, n, bom, n) == 0; };
    if (starts("\xFF\xFE", 2) || starts("\xFE\xFF", 2))
        return std::string("it is UTF-16 (it starts with the byte-order mark ") + (text[0] == '\xFF' ? "FF FE" : "FE FF") +
               "); save it as plain text (ASCII or UTF-8)";
    if (starts("\xEF\xBB\xBF", 3))
        return "it starts with a UTF-8 byte-order mark (EF BB BF), which would become part of the secret; save it without one";
    const auto nul = text.find('\0');
    if (nul != std::string::npos)
        return "it holds a NUL byte at offset " + std::to_string(nul) +
               " (UTF-16 without a byte-order mark?); save it as plain text";
    return "";
}

std::string secret_fingerprint(const std::string& secret) {
    if (secret.empty()) return "";
    const std::string b = base32(keyed_hash(course_key(secret), {"attn-secret-fingerprint-v2"}), 8);
    return b.substr(0, 4) + "-" + b.substr(4);
}

static_assert(sizeof(crypto_generichash_state) <= 512, "keyed_stream's state buffer is too small");

keyed_stream::keyed_stream(const std::array<unsigned char, 32>& key) {
    ensure_sodium();
    crypto_generichash_init(reinterpret_cast<crypto_generichash_state*>(state_), key.data(), key.size(), 16);
}

void keyed_stream::add(const void* data, std::size_t bytes) {
    crypto_generichash_update(reinterpret_cast<crypto_generichash_state*>(state_),
                              static_cast<const unsigned char*>(data), bytes);
}

std::string keyed_stream::hex() const {
    keyed_stream copy = *this;
    unsigned char out[16];
    crypto_generichash_final(reinterpret_cast<crypto_generichash_state*>(copy.state_), out, sizeof out);
    std::string text;
    char two[3];
    for (unsigned char b : out) {
        std::snprintf(two, sizeof two, "%02x", b);
        text += two;
    }
    return text;
}

std::string random_hex(std::size_t bytes) {
    ensure_sodium();
    std::vector<unsigned char> random(bytes);
    randombytes_buf(random.data(), random.size());
    std::string out;
    char two[3];
    for (unsigned char b : random) {
        std::snprintf(two, sizeof two, "%02x", b);
        out += two;
    }
    sodium_memzero(random.data(), random.size());
    return out;
}

}  // namespace attn
