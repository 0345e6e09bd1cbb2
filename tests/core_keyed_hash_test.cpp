// tests/core_keyed_hash_test.cpp — a secret's fingerprint (core/keyed_hash.hpp): the
// short code a teacher compares between the hand-out and the autograder. The expected
// values were recomputed independently with Python's hashlib.blake2b: key =
// BLAKE2b-256(secret), fingerprint = the first 8 base32 characters of BLAKE2b-256 keyed
// with it over "attn-secret-fingerprint-v2". They must never change: fingerprints
// printed in past courses would stop matching.
#include <catch2/catch.hpp>

#include <string>

#include "core/keyed_hash.hpp"

using namespace attn;

TEST_CASE("a secret's fingerprint is keyed BLAKE2b in base32, split by a dash", "[core][keyed_hash]") {
    CHECK(secret_fingerprint("attn-fixture-secret") == "ZYF3-HKQH");
    CHECK(secret_fingerprint("another secret") == "45QS-FQ2P");
    CHECK(secret_fingerprint("").empty());  // no secret, no fingerprint
}
