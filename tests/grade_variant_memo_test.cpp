// tests/grade_variant_memo_test.cpp — a class's variants learnt once (grade/variant.hpp)
// give every student the very numbers the checked draw gives, redrawn variants included,
// and a student the memo never saw is drawn and checked as before.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "grade/variant.hpp"
#include "support/lesson_exercises.hpp"

using namespace attn;
using namespace attn::grade;
using attn::testing::lessons_exercises;

namespace {

const char* secret = "attn-memo-test-secret";

exercise_numbers drawn(const exercise& x, const std::string& student, const variant_memo* memo) {
    variant_request r;
    r.student = student;
    r.secret = secret;
    r.practice_ok = false;
    r.memo = memo;
    return numbers_for(x, r);
}

void same_numbers(const exercise_numbers& a, const exercise_numbers& b) {
    CHECK(a.seed == b.seed);
    CHECK(a.redraws == b.redraws);
    CHECK(a.distinguishable == b.distinguishable);
    CHECK(a.inputs.q == b.inputs.q);  // bit for bit: the same PRNG stream replayed
    CHECK(a.inputs.k == b.inputs.k);
    CHECK(a.inputs.v == b.inputs.v);
}

}  // namespace

TEST_CASE("a learnt variant replays the checked draw exactly, redrawn ones included", "[grade][variant]") {
    const std::string id = GENERATE(as<std::string>{}, "03-causal-cat", "04-cross-the", "06-padded");
    const exercise* x = lessons_exercises().find(id);
    REQUIRE(x);
    REQUIRE(x->variant.enabled);
    std::vector<std::string> students;
    for (int i = 0; i < 400; ++i) students.push_back("s" + std::to_string(i));
    variant_memo memo;
    memo.learn(*x, secret, students);
    std::size_t redrawn = 0;
    for (const auto& s : students) {
        INFO(id << " " << s);
        const exercise_numbers checked = drawn(*x, s, nullptr);
        redrawn += checked.redraws > 0 ? 1 : 0;
        same_numbers(drawn(*x, s, &memo), checked);
        REQUIRE(memo.find(x->id, checked.seed));
        CHECK(memo.find(x->id, checked.seed)->redraws == checked.redraws);
    }
    INFO(id << ": " << redrawn << " of 400 variants were redrawn");
    CHECK(redrawn > 0);  // the replay is exercised on a variant whose first draws were refused
    // Someone the memo never saw: not found, drawn and checked as without a memo.
    CHECK_FALSE(memo.find(x->id, variant_seed(secret, "newcomer", x->id)));
    same_numbers(drawn(*x, "newcomer", &memo), drawn(*x, "newcomer", nullptr));
}
