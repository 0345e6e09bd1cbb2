// tests/lessons_exercise_test.cpp — an [[exercise]] as the lesson loader reads it
// (lessons/exercise_decl.hpp): its numbers taken from a run with the options the run was
// computed with, changed by the exercise (q_rows, causal, scale); its parts and their
// shared points; and a broken exercise reported in its own problems, at file:line:col,
// while the lesson still loads.
#include <catch2/catch.hpp>

#include "lessons/lesson_loader.hpp"

using namespace attn::lessons;

namespace {

const char* lesson_text = R"(number = 9
title = "t"
[tokens]
w = ["a", "b", "c"]
[matrices]
Q = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
V = [[1.0], [2.0], [3.0]]
[runs.r]
q = "Q"
k = "Q"
v = "V"
query_tokens = "w"
key_tokens = "w"
kind = "causal"
scale = 4.0
[[step]]
title = "s"
[[exercise]]
id = "09-w"
kind = "numeric"
prompt = "p"
points = 3
run = "r"
q_rows = ["c"]
rtol = 0.01
[[exercise.part]]
id = "raw"
[[exercise.part]]
id = "weights"
[[exercise.part.mistake]]
id = "m"
feedback = "f"
)";

std::string edited(const std::string& from, const std::string& to) {
    std::string text = lesson_text;
    text.replace(text.find(from), from.size(), to);
    return text;
}

}  // namespace

TEST_CASE("an exercise on a run takes the run's numbers and options, changed as it says", "[lessons][exercise]") {
    const lesson l = load_lesson_text(lesson_text, "09-x.toml");
    REQUIRE(l.exercises.size() == 1);
    const exercise_decl& x = l.exercises[0];
    CHECK(x.problems.empty());
    CHECK(x.numbers == setup_state::read);
    CHECK(x.setup.run == "r");
    CHECK(x.setup.run_kind == "causal");
    REQUIRE(x.setup.scale.has_value());
    CHECK(*x.setup.scale == 4.0);  // the run's own scale, not √d_k
    // q_rows = ["c"]: Q's third row alone, and the run's causal mask's third row with it.
    REQUIRE(x.setup.q.shape(0) == 1);
    CHECK(x.setup.q(0, 0) == 1.0);
    CHECK(x.setup.q(0, 1) == 1.0);
    CHECK(x.setup.query_tokens == std::vector<std::string>{"c"});
    CHECK(x.setup.k.shape(0) == 3);
    REQUIRE(x.setup.mask.has_value());
    CHECK(x.setup.mask->shape(0) == 1);  // the third query sees every key: nothing blocked
    CHECK(((*x.setup.mask)(0, 0) && (*x.setup.mask)(0, 1) && (*x.setup.mask)(0, 2)));
    CHECK(x.tol.rtol == 0.01);
    REQUIRE(x.declared_parts.size() == 2);
    CHECK(x.declared_parts[0].points == 1.5);  // none declares points: equal shares of 3
    CHECK(x.declared_parts[1].where.line == 28);
    REQUIRE(x.declared_parts[1].declared_mistakes.size() == 1);
    CHECK(x.declared_parts[1].declared_mistakes[0].feedback == "f");
    CHECK(x.variant.enabled == false);
}

TEST_CASE("the run's mask rows go with the rows q_rows keeps", "[lessons][exercise]") {
    const lesson l = load_lesson_text(edited("q_rows = [\"c\"]", "q_rows = [0]"), "09-x.toml");
    const exercise_decl& x = l.exercises.at(0);
    REQUIRE(x.setup.mask.has_value());
    CHECK((*x.setup.mask)(0, 0));
    CHECK_FALSE((*x.setup.mask)(0, 1));
    CHECK_FALSE((*x.setup.mask)(0, 2));
}

TEST_CASE("a broken exercise is reported in its own problems and the lesson still loads", "[lessons][exercise]") {
    const lesson l = load_lesson_text(edited("run = \"r\"", "run = \"nope\""), "09-x.toml");
    const exercise_decl& x = l.exercises.at(0);
    CHECK(x.numbers == setup_state::broken);
    REQUIRE(x.problems.size() == 1);
    CHECK(x.problems[0].str() == "09-x.toml:23:7: 'run' names run 'nope', which the lesson does not have (runs: r)");
}

TEST_CASE("an exercise without numbers leaves them to its kind, and its variant unread", "[lessons][exercise]") {
    const std::string numbers = "run = \"r\"\nq_rows = [\"c\"]\n";
    const lesson l = load_lesson_text(edited(numbers, "variant = { vary = [\"x\"] }\n"), "09-x.toml");
    const exercise_decl& x = l.exercises.at(0);
    CHECK(x.numbers == setup_state::absent);
    CHECK(x.variant.enabled);    // the grader tells a kind without numbers it has none
    CHECK(x.variant.vary.empty());
}

TEST_CASE("the parts' points must add up to the exercise's, and tolerances be in range", "[lessons][exercise]") {
    std::string text = edited("id = \"raw\"", "id = \"raw\"\npoints = 1");
    text.replace(text.find("id = \"weights\""), 14, "id = \"weights\"\npoints = 1\natol = -1");
    const lesson l = load_lesson_text(text, "09-x.toml");
    const exercise_decl& x = l.exercises.at(0);
    REQUIRE(x.problems.size() == 1);
    CHECK(x.problems[0].str() == "09-x.toml:22:10: the parts' points add up to 2 but the exercise has points = 3");
    const auto& part = *x.declared_parts.at(1).spec;
    std::vector<attn::io::toml_problem> problems;
    const attn::tolerance tol = read_tolerance({"09-x.toml", &problems}, part, x.tol);
    CHECK(tol.rtol == 0.01);  // the exercise's, atol refused
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].str() == "09-x.toml:32:8: 'atol' must be a finite number ≥ 0");
}
