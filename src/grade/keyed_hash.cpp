// grade/keyed_hash.cpp — see keyed_hash.hpp.
#include "grade/keyed_hash.hpp"

#include <stdexcept>

#include <sodium.h>

#include "core/internal_error.hpp"

namespace attn::grade {

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

}  // namespace attn::grade
