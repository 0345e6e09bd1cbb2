// tests/grade_variant_test.cpp — per-student numbers: pinned for one student (the
// same on every compiler: the PRNG and its distributions are the project's own),
// different between students, refused without the course secret; and exercise
// declarations checked with file:line:col.
#include <catch2/catch.hpp>

#include <string>

#include "grade/exercise.hpp"
#include "grade/variant.hpp"
#include "lessons/lesson_loader.hpp"
#include "support/lesson_exercises.hpp"

using namespace attn;
using namespace attn::grade;
using attn::testing::lessons_exercises;

namespace {

exercise_numbers variant_numbers(const std::string& id, const std::string& student, const std::string& secret = "attn-fixture-secret") {
    const exercise* x = lessons_exercises().find(id);
    REQUIRE(x);
    variant_request r;
    r.student = student;
    r.secret = secret;
    return numbers_for(*x, r);
}

}  // namespace

TEST_CASE("a student's numbers come from keyed BLAKE2b: seed and variant code pinned", "[grade]") {
    // The recipe (variant.hpp) recomputed with Python's hashlib.blake2b, independently:
    // key = BLAKE2b-256(secret); seed = first 8 bytes (LE) of BLAKE2b-256 keyed, over
    // "attn-variant-seed-v2\0" + exercise + "\0" + student; code = base32 of the
    // "attn-variant-code-v2" hash; fingerprint = base32 of "attn-secret-fingerprint-v2".
    CHECK(variant_seed("attn-fixture-secret", "alice", "04-cross-the") == 0x00c47e95fb267810ULL);
    CHECK(variant_code("attn-fixture-secret", "alice", "04-cross-the") == "I4G5AN");
    const exercise_numbers n = variant_numbers("04-cross-the", "alice");
    CHECK(n.personal);
    CHECK(n.code == "I4G5AN");
    CHECK(n.parameters == "q, k, v, encoder_q: halves in [-1, 1]");
    const exercise_numbers again = variant_numbers("04-cross-the", "alice");
    CHECK(bool(again.inputs.q == n.inputs.q));
    CHECK(bool(again.inputs.v == n.inputs.v));
}

TEST_CASE("student ids are normalised and the secret is read the same from a file and the environment", "[grade]") {
    CHECK(normalize_student_id("  Alice\r\n") == "alice");
    CHECK(normalize_student_id("\tBOB ") == "bob");
    CHECK(normalize_student_id("Zoë") == "zoë");  // only ASCII letters are folded
    CHECK(bool(variant_numbers("04-cross-the", " ALICE ").inputs.q == variant_numbers("04-cross-the", "alice").inputs.q));
    CHECK(secret_from_text("s3cret\r\n") == "s3cret");
    CHECK(secret_from_text("  s3cret  \nsecond line") == "s3cret");
    CHECK(secret_from_text("s3cret") == "s3cret");
}

TEST_CASE("two students, or two exercises, or two secrets give different numbers", "[grade]") {
    const auto a = variant_numbers("04-cross-the", "alice");
    CHECK(bool(variant_numbers("04-cross-the", "bob").inputs.q != a.inputs.q));
    CHECK(bool(variant_numbers("04-cross-the", "alice", "another-course").inputs.q != a.inputs.q));
    CHECK(variant_numbers("01-self-cat", "alice").seed != a.seed);
}

TEST_CASE("variant numbers are small halves, no all-zero row, shapes and masks kept", "[grade]") {
    for (const char* student : {"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"}) {
        const auto n = variant_numbers("06-padded", student);
        REQUIRE(n.inputs.q.shape(0) == 5);
        REQUIRE(n.inputs.mask.has_value());
        CHECK_FALSE((*n.inputs.mask)(0, 3));  // the padding mask stays the lesson's
        CHECK_FALSE((*n.inputs.mask)(4, 0));  // and the padded query sees nothing
        for (const matrix* m : {&n.inputs.q, &n.inputs.k, &n.inputs.v})
            for (std::size_t i = 0; i < m->shape(0); ++i) {
                bool nonzero = false;
                for (std::size_t j = 0; j < m->shape(1); ++j) {
                    const double x = (*m)(i, j);
                    CHECK(x * 2.0 == std::floor(x * 2.0));
                    CHECK(std::fabs(x) <= 1.0);
                    nonzero = nonzero || x != 0.0;
                }
                CHECK(nonzero);
            }
    }
}

TEST_CASE("without a secret: the practice variant, never a class's numbers; a class refuses to grade", "[grade]") {
    const exercise* x = lessons_exercises().find("04-cross-the");
    variant_request r;
    r.student = "alice";
    const auto practice = numbers_for(*x, r);
    CHECK(practice.practice);
    CHECK_FALSE(practice.personal);
    CHECK(practice.code == "practice");
    CHECK(bool(practice.inputs.q != variant_numbers("04-cross-the", "alice").inputs.q));
    variant_request nobody;
    CHECK(bool(numbers_for(*x, nobody).inputs.q == practice.inputs.q));  // the same for everyone
    // Even a secret equal to the public practice key gives other numbers (another hash domain).
    CHECK(bool(variant_numbers("04-cross-the", "alice", "attn practice variants (public, not a course secret)").inputs.q !=
               practice.inputs.q));
    r.practice_ok = false;  // --class, --gradescope
    CHECK_THROWS_AS(numbers_for(*x, r), variant_error);
    r.lesson_numbers = true;
    CHECK_FALSE(numbers_for(*x, r).personal);
    CHECK(numbers_for(*x, r).inputs.q(0, 0) == Approx(1.2));  // lesson 04's Q_dec
    variant_request by_seed;
    by_seed.seed = 0x00c47e95fb267810ULL;  // a seed alone regenerates nothing: the secret is needed too
    CHECK_THROWS_AS(numbers_for(*x, by_seed), variant_error);
    by_seed.secret = "attn-fixture-secret";
    CHECK(bool(numbers_for(*x, by_seed).inputs.q == variant_numbers("04-cross-the", "alice").inputs.q));
}

TEST_CASE("a broken exercise declaration is reported with its file, line and column", "[grade]") {
    const std::string text = R"(number = 9
title = "t"
[matrices]
Q = [[1.0, 0.0]]
[runs.self]
q = "Q"
k = "Q"
v = "Q"
[[step]]
title = "s"
[[exercise]]
id = "09-a"
kind = "numeric"
prompt = "p"
points = 2
run = "self"
[[exercise.part]]
id = "w"
stage = "weigths"
[[exercise]]
id = "9-b"
kind = "choice"
prompt = "p"
points = 1
choices = ["x", "y"]
answer = "z"
[[exercise]]
id = "09-c"
kind = "shape"
prompt = "p"
points = 1
answer = "B × (n"
)";
    const lessons::lesson l = lessons::load_lesson_text(text, "09-x.toml");
    std::vector<lessons::diagnostic> problems;
    const auto xs = read_exercises(l, problems);
    CHECK(xs.empty());
    REQUIRE(problems.size() == 4);
    CHECK_THAT(problems[0].str(), Catch::Contains("09-x.toml:19:9") && Catch::Contains("unknown stage 'weigths'"));
    CHECK_THAT(problems[1].str(), Catch::Contains("09-x.toml:21:6") && Catch::Contains("must start with the lesson number"));
    CHECK_THAT(problems[2].str(), Catch::Contains("09-x.toml:26:10") && Catch::Contains("one of the exercise's choices"));
    CHECK_THAT(problems[3].str(), Catch::Contains("09-x.toml:32:10") && Catch::Contains("is not a shape"));
}

TEST_CASE("every exercise of the lessons loads, ids unique and numbered by lesson", "[grade]") {
    const auto& set = lessons_exercises();
    CHECK(set.all.size() >= 20);
    for (const auto& x : set.all) {
        INFO(x.id);
        CHECK(x.id.substr(0, 2) == (x.lesson < 10 ? "0" : "") + std::to_string(x.lesson));
        double sum = 0;
        for (const auto& p : x.parts) sum += p.points;
        CHECK(sum == Approx(x.points));
    }
}
