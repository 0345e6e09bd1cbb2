// tests/grade_fixtures_test.cpp — the hand-written answer files of
// tests/fixtures/grade/ (see its README): each one's expected grade and diagnosis.
// The expected numbers in those files come from seed 002's printed tables or from
// NumPy, never from the grader.
#include <catch2/catch.hpp>

#include <string>

#include "grade/grader.hpp"
#include "lessons/lesson_loader.hpp"
#include "support/grade_fixtures.hpp"
#include "support/lesson_exercises.hpp"

using namespace attn;
using namespace attn::grade;
using attn::testing::fixture_file;
using attn::testing::lessons_exercises;

namespace {

grade_report grade_fixture(const std::string& name) {
    grade_options o;
    o.lesson_numbers = true;  // the fixtures answer on the lessons' own numbers
    return grade_submission(read_submission_path(fixture_file(name)), lessons_exercises(), o);
}

const part_result* find_part(const grade_report& r, const std::string& exercise, const std::string& part) {
    for (const auto& x : r.exercises)
        if (x.id == exercise)
            for (const auto& p : x.parts)
                if (p.id == part) return &p;
    return nullptr;
}

}  // namespace

TEST_CASE("the correct answer files score full marks in TOML and in JSON", "[grade]") {
    for (const char* name : {"correct.toml", "correct.json"}) {
        INFO(name);
        const grade_report r = grade_fixture(name);
        CHECK(r.max == 11.0);
        CHECK(r.score == Approx(11.0));
        CHECK(r.full_marks());
        CHECK(r.mistake_ids().empty());
    }
}

TEST_CASE("each catalogued mistake is named in the feedback with the tolerance", "[grade]") {
    // The last column is the exercise's score: a named mistake costs 50% of an exercise,
    // once (every other part right or carried from it); a carried part earns 50% of its
    // points; unanswered parts earn nothing (the fixtures answer only some parts).
    using row = std::tuple<std::string, std::string, std::string, std::string, double>;
    auto [file, exercise, part, mistake, score] = GENERATE(table<std::string, std::string, std::string, std::string, double>({
        row{"mistake-no_scaling.toml", "04-cross-the", "weights", "no_scaling", 1.5},  // raw 1 + output carried 0.5
        row{"mistake-scaled_by_d.toml", "04-cross-the", "scaled", "scaled_by_d", 0.5},  // weights carried 0.5
        row{"mistake-softmax_wrong_axis.toml", "04-cross-weights", "answer", "softmax_wrong_axis", 1.0},  // 50% of 2
        row{"mistake-no_softmax.toml", "04-cross-the", "weights", "no_softmax", 0.0},
        row{"mistake-transposed_scores.toml", "04-cross-the", "raw", "transposed_scores", 0.0},
        row{"mistake-queries_from_encoder.toml", "04-cross-the", "weights", "queries_from_encoder", 0.5},
        row{"mistake-k_v_swapped.toml", "04-cross-the", "output", "k_v_swapped", 0.0},
        row{"mistake-mask_missing.toml", "06-padded-the", "answer", "mask_missing", 0.5},
        row{"mistake-mask_reversed.toml", "06-padded-the", "answer", "mask_reversed", 0.5},
        row{"mistake-all_masked_row.toml", "03-blind", "weights", "all_masked_row", 1.0},
        row{"mistake-rounded_early.toml", "04-cross-the", "weights", "rounded_early", 0.0},
        row{"shape-transposed.toml", "05-fr-shape", "answer", "shape_transposed", 0.0},
        row{"choice-mistake.toml", "04-qkv-from", "Q", "queries-from-source", 1.0},  // K right
        row{"short-mistake.toml", "03-why-causal", "answer", "causal-is-padding", 0.0},
    }));
    INFO(file);
    const grade_report r = grade_fixture(file);
    const part_result* p = find_part(r, exercise, part);
    REQUIRE(p);
    CHECK(p->mistake == mistake);
    for (const auto& x : r.exercises)
        if (x.id == exercise) CHECK(x.score == Approx(score));
    if (p->what != "shape" && p->what != "choice" && p->what != "short") {
        CHECK_THAT(p->feedback.full(), Catch::Contains("rtol") && Catch::Contains("atol"));
        CHECK_THAT(p->feedback.full(), Catch::Contains(p->mistake_name));
    }
}

TEST_CASE("the no-scaling feedback says what was left out, with the number", "[grade]") {
    const grade_report r = grade_fixture("mistake-no_scaling.toml");
    const part_result* p = find_part(r, "04-cross-the", "weights");
    REQUIRE(p);
    CHECK_THAT(p->feedback.full(), Catch::Contains("softmax(Q Kᵀ) without dividing by √d_k = 2"));
    // The raw scores were right: a correct part is never given a mistake.
    CHECK(find_part(r, "04-cross-the", "raw")->mistake.empty());
    CHECK(find_part(r, "04-cross-the", "raw")->status == part_status::correct);
}

TEST_CASE("a named mistake is said with the verb its part needs: weights match, the scale matches", "[grade]") {
    grade_options o;
    o.lesson_numbers = true;
    // Lesson 01 has d_k = 4: dividing by d_k instead of √d_k = 2 is the mistake scaled_by_d.
    const grade_report scale = grade_submission(read_submission_text("\"01-scale\" = 4.0\n", "scale.toml", false),
                                                lessons_exercises(), o);
    REQUIRE(scale.exercises.size() == 1);
    REQUIRE(scale.exercises[0].parts.size() == 1);
    CHECK_THAT(scale.exercises[0].parts[0].feedback.full(),
               Catch::Contains("Your scale matches the mistake \"scaling by d_k instead of √d_k\""));
    const grade_report weights = grade_fixture("mistake-no_scaling.toml");
    const part_result* w = find_part(weights, "04-cross-the", "weights");
    REQUIRE(w);
    CHECK_THAT(w->feedback.full(), Catch::Contains("Your weights match the mistake \"no scaling\""));
}

TEST_CASE("partial credit per entry, and an error carried forward is counted once", "[grade]") {
    const grade_report r = grade_fixture("partial.toml");
    CHECK(find_part(r, "04-cross-the", "raw")->status == part_status::partial);
    CHECK(find_part(r, "04-cross-the", "raw")->score == Approx(0.8));  // 4 of 5 entries
    CHECK_THAT(find_part(r, "04-cross-the", "raw")->feedback.full(), Catch::Contains("row 'The', column 'cat', expected 2.3000, found 2.4000"));
    CHECK(find_part(r, "04-cross-the", "scaled")->status == part_status::carried);
    CHECK(find_part(r, "04-cross-the", "scaled")->score == Approx(0.5));  // carried credit is 50%
    CHECK(find_part(r, "04-cross-the", "weights")->status == part_status::correct);
    CHECK(find_part(r, "04-cross-the", "output")->status == part_status::unanswered);
    CHECK(r.score == Approx(2.3));
    CHECK(r.max == 4.0);
}

TEST_CASE("malformed answer files are not gradable, with the place and the reason", "[grade]") {
    using row = std::tuple<std::string, std::string, std::string>;
    auto [file, reason, where] = GENERATE(table<std::string, std::string, std::string>({
        row{"malformed/empty.toml", "empty", "empty.toml"},
        row{"malformed/syntax.toml", "syntax", "syntax.toml:3:1"},
        row{"malformed/syntax.json", "syntax", "syntax.json:3:24"},
        row{"malformed/not-utf8.toml", "not-utf8", "not-utf8.toml:1:15"},
        row{"malformed/not-a-table.json", "layout", "not-a-table.json:1:1"},
    }));
    try {
        read_submission_path(fixture_file(file));
        FAIL(file << " was read");
    } catch (const attn::error& e) {
        CHECK(e.reason == reason);
        CHECK_THAT(e.what(), Catch::Contains(where));
    }
}

TEST_CASE("an answer of the wrong kind is invalid with its location, the rest is graded", "[grade]") {
    const grade_report ragged = grade_fixture("malformed/ragged.toml");
    const part_result* p = find_part(ragged, "04-cross-weights", "answer");
    REQUIRE(p);
    CHECK(p->status == part_status::invalid);
    CHECK_THAT(p->feedback.full(), Catch::Contains("ragged.toml:2:38") && Catch::Contains("row 1 has 2 entries"));
    const grade_report typed = grade_fixture("malformed/wrong-type.json");
    CHECK(find_part(typed, "04-cross-the", "weights")->status == part_status::invalid);
    CHECK_THAT(find_part(typed, "04-cross-the", "weights")->feedback.full(), Catch::Contains("wrong-type.json:1:30"));
    const grade_report unknown = grade_fixture("malformed/unknown.toml");
    CHECK(unknown.score == 1.0);
    REQUIRE(unknown.notes.size() == 2);
    CHECK_THAT(unknown.notes[0], Catch::Contains("no exercise '99-nope'"));
    CHECK_THAT(unknown.notes[1], Catch::Contains("no part 'colour'"));
}

TEST_CASE("a shape answer is parsed leniently and a wrong one is classified", "[grade]") {
    const exercise* x = lessons_exercises().find("05-fr-shape");
    REQUIRE(x);
    using row = std::tuple<std::string, std::string, std::string>;
    auto [text, status, mistake] = GENERATE(table<std::string, std::string, std::string>({
        row{"3 × 5", "correct", ""},
        row{"(3, 5)", "correct", ""},
        row{"[3,5]", "correct", ""},
        row{"5 x 3", "wrong", "shape_transposed"},
        row{"3 × 4", "wrong", "shape_wrong_dim"},
        row{"1 × 3 × 5", "wrong", "shape_extra_axis"},
        row{"3 ×", "invalid", ""},
    }));
    io::value_node a;
    a.kind = io::value_node::type::string;
    a.text = text;
    std::vector<std::string> notes;
    const exercise_result r = grade_exercise(*x, &a, {variant_request{}, nullptr, notes, notes});
    CHECK(status_name(r.parts[0].status) == status);
    CHECK(r.parts[0].mistake == mistake);
}
