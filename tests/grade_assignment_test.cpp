// tests/grade_assignment_test.cpp — assignment files (`attn grade --assignment`): the
// exercises they list are graded (unanswered ones at 0, failing --strict), their points
// replace the lesson's, bad files are refused at file:line:col; a single file graded
// without an assignment says which exercises it graded. Runs the real binary.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "grade/grader.hpp"
#include "lessons/lesson_loader.hpp"
#include "support/golden.hpp"
#include "support/grade_fixtures.hpp"
#include "support/scratch.hpp"

using namespace attn::testing;
namespace fs = std::filesystem;

namespace {

// partial.toml answers only 04-cross-the (4 points); 04-qkv-from is worth 3, 05-fr-shape 1.
const char* three_and_one_more = R"(feedback = "full"
[[exercise]]
id = "04-cross-the"
points = 8
[[exercise]]
id = "04-qkv-from"
[[exercise]]
id = "05-fr-shape"
[[exercise]]
id = "01-self-cat"
)";

}  // namespace

TEST_CASE("an assignment grades every exercise it lists: unanswered at 0, its points replace the lesson's",
          "[grade][assignment]") {
    scratch_folder s("assign-lists");
    const std::string a = s.write("a.toml", three_and_one_more);
    int code = -1;
    const std::string out = run_command(attn_cmd_with_secret("grade --no-variants --format json --assignment " + shell_quote(a) + " " +
                                                             shell_quote(fixture_file("partial.toml"))),
                                        &code);
    REQUIRE(code == 0);
    const auto j = nlohmann::json::parse(out);
    REQUIRE(j["exercises"].size() == 4);
    CHECK(j["exercises"][0]["id"] == "04-cross-the");
    CHECK(j["exercises"][0]["max_score"] == 8.0);  // the lesson says 4
    double parts = 0.0;
    for (const auto& p : j["exercises"][0]["parts"]) parts += p["max_score"].get<double>();
    CHECK_THAT(parts, Catch::WithinAbs(8.0, 1e-9));
    const auto& missing = j["exercises"][3];
    CHECK(missing["id"] == "01-self-cat");
    CHECK(missing["answered"] == false);
    CHECK(missing["score"] == 0.0);
    CHECK(missing["max_score"].get<double>() > 0.0);
    for (const auto& p : missing["parts"]) CHECK(p["feedback"] == "not answered");
    CHECK(j["max_score"].get<double>() == Approx(8 + 3 + 1 + missing["max_score"].get<double>()));
    CHECK_FALSE(j.contains("graded"));  // an assignment was given

    // The text report shows the unanswered exercise, and --strict fails on it.
    const std::string text = run_command(attn_cmd_with_secret("grade --no-variants --assignment " + shell_quote(a) + " " +
                                                              shell_quote(fixture_file("correct.toml"))),
                                         &code);
    CHECK_THAT(text, Catch::Contains("01-self-cat") && Catch::Contains("not answered"));
    run_command(attn_cmd_with_secret("grade --strict --no-variants --assignment " + shell_quote(a) + " " + shell_quote(fixture_file("correct.toml"))),
                &code);
    CHECK(code == 1);
}

TEST_CASE("An assignment made by --exercises and --lesson: an exercise not answered scores 0 and fails --strict",
          "[grade][assignment]") {
    int code = -1;
    // correct.toml is full marks on what it answers ...
    run_command(attn_cmd_with_secret("grade --strict --no-variants " + shell_quote(fixture_file("correct.toml"))), &code);
    REQUIRE(code == 0);
    // ... but not on an assignment with one more exercise.
    for (const std::string& extra : {std::string("--exercises 04-cross-the,01-self-cat"), std::string("--lesson 1")}) {
        INFO(extra);
        const std::string out =
            run_command(attn_cmd_with_secret("grade " + shell_quote(fixture_file("correct.toml")) + " --strict --no-variants --format json " + extra), &code);
        CHECK(code == 1);
        const auto j = nlohmann::json::parse(out);
        bool unanswered_at_zero = false;
        for (const auto& x : j["exercises"])
            if (x["id"] == "01-self-cat") unanswered_at_zero = x["answered"] == false && x["score"] == 0.0;
        CHECK(unanswered_at_zero);
    }
}

TEST_CASE("a single file graded without an assignment says which exercises it graded", "[grade][assignment]") {
    int code = -1;
    const std::string out = run_command(attn_cmd_with_secret("grade --no-variants --width 200 " + shell_quote(fixture_file("correct.toml"))), &code);
    CHECK(code == 0);
    const auto j = nlohmann::json::parse(
        run_command(attn_cmd_with_secret("grade --no-variants --format json " + shell_quote(fixture_file("correct.toml"))), &code));
    CHECK(j["graded"] ==
          "Graded 6 exercises: 03-why-causal, 04-cross-the, 04-qkv-from, 05-fr-shape, 06-cross-causal, 06-padded-the; no "
          "assignment given, so only the answered ones");
    CHECK_THAT(out, Catch::Contains("Graded 6 exercises: 03-why-causal,") && Catch::Contains("no assignment given"));
    const std::string one = run_command(attn_cmd_with_secret("grade --no-variants " + shell_quote(fixture_file("partial.toml"))), &code);
    CHECK_THAT(one, Catch::Contains("Graded 1 exercise: 04-cross-the;"));
    const std::string with =
        run_command(attn_cmd_with_secret("grade " + shell_quote(fixture_file("partial.toml")) + " --no-variants --exercises 04-cross-the"), &code);
    CHECK_THAT(with, !Catch::Contains("no assignment given"));
}

TEST_CASE("a bad assignment file is refused with its file:line:col, exit 2", "[grade][assignment]") {
    scratch_folder s("assign-bad");
    struct bad_case {
        const char* text;
        const char* says;
    };
    auto [text, says] = GENERATE(values<bad_case>({
        {"[[exercise]]\nid = \"04-cross-the\"\n[[exercise]]\nid = \"99-nowhere\"\n", "a.toml:4:6: no exercise '99-nowhere'"},
        {"[[exercise]]\nid = \"04-cross-the\"\npionts = 3\n", "a.toml:3:1: unknown key 'pionts' in an [[exercise]] (did you mean 'points'?"},
        {"feedback = \"some\"\n[[exercise]]\nid = \"04-cross-the\"\n", "a.toml:1:12: 'feedback' must be \"full\", \"mistakes\" or \"score\", found \"some\""},
        {"[[exercise]]\nid = \"04-cross-the\"\npoints = -1\n", "a.toml:3:10: 'points' must be a positive number"},
        // toml++ gives no double for an integer beyond 2^53: read as 0 before, graded at 0 points.
        {"[[exercise]]\nid = \"04-cross-the\"\npoints = 9223372036854775807\n", "a.toml:3:10: 'points' must be a positive number"},
        {"[[exercise]]\nid = \"04-cross-the\"\n[[exercise]]\nid = \"04-cross-the\"\n", "a.toml:4:6: exercise '04-cross-the' is listed twice"},
        {"[[exercise]]\nid = \"04-cross-the\"\nvisibility = \"later\"\n", "a.toml:3:14: 'visibility' must be \"visible\", \"hidden\", \"after_due_date\" or \"after_published\", found \"later\""},
        {"title = \"week 1\"\n", "a.toml:1:1: an assignment lists its exercises"},
        {"[[exercise]\nid = 1\n", "a.toml:1:"},
        {"exercises = [\"04-cross-the\"]\n", "a.toml:1:1: unknown key 'exercises' in an assignment file (did you mean 'exercise'?"},
    }));
    INFO(text);
    const std::string a = s.write("a.toml", text);
    int code = -1;
    const std::string err = run_command(attn_cmd_with_secret("grade --no-variants --assignment " + shell_quote(a) + " " +
                                                             shell_quote(fixture_file("partial.toml")) + " 2>&1"),
                                        &code);
    CHECK(code == 2);
    CHECK_THAT(err, Catch::Contains(says));
    CHECK_THAT(err, !Catch::Contains("Total"));  // nothing graded
}

TEST_CASE("Giving --assignment with --exercises is a usage error, and a missing assignment file is named", "[grade][assignment]") {
    int code = -1;
    const std::string ex = std::string(ATTN_SOURCE_DIR) + "/examples/assignment.toml";
    std::string err = run_command(attn_cmd_with_secret("grade " + shell_quote(fixture_file("partial.toml")) + " --no-variants --assignment " +
                                                       shell_quote(ex) + " --exercises 04-cross-the 2>&1"),
                                  &code);
    CHECK(code == 2);
    CHECK_THAT(err, Catch::Contains("--assignment names the exercises"));
    err = run_command(attn_cmd_with_secret("grade --assignment /nonexistent/a.toml " + shell_quote(fixture_file("partial.toml")) + " 2>&1"), &code);
    CHECK(code == 2);
    CHECK_THAT(err, Catch::Contains("/nonexistent/a.toml"));
}

TEST_CASE("the example assignment reads, and the library applies it to the grading options", "[grade][assignment]") {
    const auto set = attn::grade::load_exercise_set(attn::lessons::lessons_dir());
    const auto a = attn::grade::read_assignment(std::string(ATTN_SOURCE_DIR) + "/examples/assignment.toml", set);
    REQUIRE(a.exercise_ids.size() == 5);
    CHECK(a.exercise_ids.front() == "03-causal-cat");
    CHECK(a.release_expected == "after_due_date");
    CHECK(*a.per_exercise.at("04-cross-the").points == 6.0);
    attn::grade::grade_options g;
    attn::grade::apply_assignment(a, g, std::nullopt);
    CHECK(g.feedback == attn::grade::feedback_level::mistakes);
    CHECK(*g.per_exercise.at("04-qkv-from").feedback == attn::grade::feedback_level::score);
    CHECK(*g.per_exercise.at("05-fr-shape").feedback == attn::grade::feedback_level::full);
    attn::grade::apply_assignment(a, g, attn::grade::feedback_level::full);  // the command line wins
    CHECK(g.feedback == attn::grade::feedback_level::full);
    CHECK_FALSE(g.per_exercise.at("04-qkv-from").feedback.has_value());
}

TEST_CASE("A class graded with an assignment: its exercises are the gradebook's columns, at its points", "[grade][assignment]") {
    scratch_folder s("assign-class");
    const std::string a = s.write("a.toml", "[[exercise]]\nid = \"04-cross-the\"\npoints = 8\n[[exercise]]\nid = \"01-self-cat\"\n");
    int code = -1;
    run_command(attn_cmd_with_secret("grade --no-variants --class " + shell_quote(fixture_file("class")) + " --assignment " + shell_quote(a) +
                                     " --gradebook " + shell_quote(s.path("book.csv"))),
                &code);
    CHECK(code == 0);
    const std::string book = read_file(s.path("book.csv"));
    CHECK_THAT(book, Catch::StartsWith("student,04-cross-the,01-self-cat,total,max,"));
    // alice answers 04-cross-the right and not 01-self-cat: 8 of 8 + its points.
    CHECK_THAT(book, Catch::Contains("\nalice,8,0,8,"));
}

TEST_CASE("Under --gradescope a broken assignment still writes results.json, and exits 2", "[grade][assignment]") {
    scratch_folder s("assign-gs");
    const std::string a = s.write("a.toml", "[[exercise]]\nid = \"04-nothing\"\n");
    s.write("submission/answers.toml", read_file(fixture_file("partial.toml")));
    s.write("meta.json", R"({"users": [{"sid": "ana"}]})");
    int code = -1;
    const std::string err = run_command(attn_cmd_with_secret("grade --gradescope --no-variants --assignment " + shell_quote(a) +
                                                             " --submission " + shell_quote(s.path("submission")) + " --metadata " +
                                                             shell_quote(s.path("meta.json")) + " --results " + shell_quote(s.path("r.json")) +
                                                             " 2>&1"),
                                        &code);
    CHECK(code == 2);
    CHECK_THAT(err, Catch::Contains("a.toml:2:6: no exercise '04-nothing'"));
    const auto j = nlohmann::json::parse(read_file(s.path("r.json")));
    CHECK(j["score"] == 0.0);
    CHECK_THAT(j["output"].get<std::string>(), Catch::Contains("misconfigured") && Catch::Contains("04-nothing"));
}

TEST_CASE("Each of --exercises and --lesson takes one value: a FILE after them is graded, not swallowed", "[grade][assignment]") {
    int code = -1;
    const std::string out = run_command(attn_cmd_with_secret("grade --no-variants --format json --exercises 04-cross-the,05-fr-shape --lesson 3 " +
                                                             shell_quote(fixture_file("correct.toml"))),
                                        &code);
    REQUIRE(code == 0);
    const auto j = nlohmann::json::parse(out);
    CHECK(j["exercises"].at(0)["id"] == "04-cross-the");
    CHECK(j["exercises"].at(1)["id"] == "05-fr-shape");
    CHECK(j["exercises"].at(2)["lesson"] == 3);
    CHECK(j["exercises"].at(0)["score"] == j["exercises"].at(0)["max_score"]);  // correct.toml was read
}
