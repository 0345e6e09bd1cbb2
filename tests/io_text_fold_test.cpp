// tests/io_text_fold_test.cpp — text compared as a person means it (io/text_fold.hpp):
// the trims of student ids and the course secret's line, and the folding that lets a
// typed choice name its choice. Expected values written by hand.
#include <catch2/catch.hpp>

#include <string>

#include "io/text_fold.hpp"

using namespace attn::io;

TEST_CASE("trimmed drops only the given bytes at either end", "[io][text]") {
    CHECK(trimmed("  s3cret \r\n") == "s3cret");
    CHECK(trimmed("\t a b \t") == "a b");           // inner spaces stay
    CHECK(trimmed(" \r\n ").empty());
    CHECK(trimmed("").empty());
    CHECK(trimmed("\vid\f") == "\vid\f");           // not in the default set
    CHECK(trimmed("\vid\f", " \v\f") == "id");
    CHECK(trimmed("xxabcxx", "x") == "abc");
}

TEST_CASE("ascii_lower lower-cases ASCII letters and keeps every other byte", "[io][text]") {
    CHECK(ascii_lower("Alice O'Neil 42") == "alice o'neil 42");
    CHECK(ascii_lower("ÉCOLE") == "École");  // É is two bytes, never case-folded
    CHECK(ascii_lower("").empty());
}

TEST_CASE("folded_words keeps words lower-cased, one space between them", "[io][text]") {
    CHECK(folded_words("  Word-order!") == "word order");
    CHECK(folded_words("(b) Source") == "b source");
    CHECK(folded_words("d_k × n") == "d k × n");  // × is non-ASCII: a letter
    CHECK(folded_words("Ölçek,,,  ÇOK") == "Ölçek Çok");  // non-ASCII letters keep their case
    CHECK(folded_words("...").empty());
    CHECK(folded_words("A1b2") == "a1b2");
}
