// tests/grade_cli_test.cpp — `attn grade` end to end: a class folder with broken
// submissions, 300 generated submissions, Gradescope's results.json, JUnit XML and
// the strict exit code. Runs the real binary; nothing here echoes the grader's numbers.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "grade/exercise.hpp"
#include "support/golden.hpp"
#include "support/grade_fixtures.hpp"
#include "support/scratch.hpp"
#include "support/text_checks.hpp"

using namespace attn::testing;
namespace fs = std::filesystem;

namespace {

}  // namespace

TEST_CASE("a class folder with broken submissions: every student in the gradebook, the batch goes on", "[grade][cli]") {
    scratch_folder s("grade-class");
    int code = -1;
    const std::string out = run_command(attn_cmd_with_secret("grade --no-variants --class " + shell_quote(fixture_file("class")) +
                                                             " --gradebook " + shell_quote(s.path("book.csv")) + " --histogram " +
                                                             shell_quote(s.path("hist.csv"))),
                                        &code);
    CHECK(code == 0);
    const auto rows = lines_of(read_file(s.path("book.csv")));
    REQUIRE(rows.size() == 9);  // header + alice bob carol dave erin frank grace heidi
    // Columns: every exercise someone answered, in lesson order.
    CHECK(rows[0] == "student,03-why-causal,04-cross-the,04-qkv-from,05-fr-shape,06-padded-the,06-cross-causal,total,max,percent,status,reason,mistakes,variant,notes");
    // alice's file says student "fixture": graded as alice (the file's name), and said in notes.
    CHECK(rows[1] == "alice,1,4,3,1,1,1,11,11,100.0,graded,,,,\"the file's student key says 'fixture' (graded as 'alice', its submitter)\"");
    // bob's two files are merged: raw and scaled from one, weights and output from the
    // other; the weights forgot the scaling, the output follows from them (carried).
    CHECK(rows[2] == "bob,0,2,0,0,0,0,2,11,18.2,graded,,no_scaling shape_transposed,,");
    CHECK_THAT(rows[4], Catch::StartsWith("dave,") && Catch::Contains("not gradable,empty: dave.toml: the file is empty"));
    CHECK_THAT(rows[5], Catch::StartsWith("erin,") && Catch::Contains("not gradable,\"syntax: erin.json:3:24"));
    CHECK_THAT(rows[6], Catch::StartsWith("frank,") && Catch::Contains("not gradable,not-utf8"));
    CHECK_THAT(rows[7], Catch::StartsWith("grace,") && Catch::Contains("not gradable,no-answers"));
    const std::string hist = read_file(s.path("hist.csv"));
    CHECK_THAT(hist, Catch::Contains("no_scaling,no scaling,1,1,04-cross-the:1"));  // bob's weights, per exercise
    CHECK_THAT(hist, Catch::Contains("mask_missing,mask missing,1,1"));  // carol
    CHECK_THAT(out, Catch::Contains("Class: 8 submissions, 4 graded, 4 not gradable"));
}

TEST_CASE("300 generated submissions, some broken: every one has its gradebook row, the broken ones not gradable", "[grade][cli]") {
    // Speed is measured in bench/ (bench/make_class.py, README "Grading a class"), never asserted here.
    scratch_folder s("grade-three-hundred");
    const std::string good = read_file(fixture_file("correct.toml"));
    const std::string slip = read_file(fixture_file("mistake-no_scaling.toml"));
    for (int i = 0; i < 300; ++i) {
        const std::string name = "s" + std::to_string(1000 + i);
        if (i % 50 == 7) s.write(name + ".toml", "");                        // empty
        else if (i % 50 == 19) s.write(name + ".json", "{\"04-cross-the\": [");  // cut off
        else if (i % 50 == 31) s.write(name + ".toml", std::string(2u << 20, 'x'));  // 2 MiB
        else if (i % 50 == 43) s.write(name + ".toml", "raw = \"\xff\xfe\"\n");   // not UTF-8
        else s.write(name + ".toml", i % 3 ? good : slip);
    }
    int code = -1;
    run_command(attn_cmd_with_secret("grade --no-variants --class " + shell_quote(s.dir.string()) + " --gradebook " +
                                     shell_quote(s.path("book.csv"))),
                &code);
    CHECK(code == 0);
    const auto rows = lines_of(read_file(s.path("book.csv")));
    CHECK(rows.size() == 301);
    std::size_t broken = 0;
    for (const auto& r : rows) broken += r.find(",not gradable,") != std::string::npos;
    CHECK(broken == 24);
}

TEST_CASE("Gradescope: results.json always written, with the spec's fields", "[grade][cli]") {
    scratch_folder s("grade-gradescope");
    fs::create_directories(s.dir / "submission");
    fs::copy_file(fixture_file("partial.toml"), s.dir / "submission" / "answers.toml");
    s.write("meta.json", R"({"users": [{"email": "ana@example.edu", "id": 7, "name": "Ana"}]})");
    int code = -1;
    run_command(attn_cmd_with_secret("grade --gradescope --no-variants --submission " + shell_quote(s.path("submission")) + " --results " +
                                     shell_quote(s.path("results/results.json")) + " --metadata " + shell_quote(s.path("meta.json"))),
                &code);
    CHECK(code == 0);
    const auto j = nlohmann::json::parse(read_file(s.path("results/results.json")));
    CHECK(j["score"] == 2.3);
    REQUIRE(j["tests"].size() == 4);
    for (const auto& t : j["tests"]) {
        for (const char* key : {"name", "number", "score", "max_score", "status", "output", "visibility"}) CHECK(t.contains(key));
        CHECK((t["status"] == "passed" || t["status"] == "failed"));
    }
    CHECK(j["tests"][1]["status"] == "failed");  // carried forward: 50% of the part
    CHECK(j["tests"][3]["status"] == "failed");

    // No submission at all, or a broken one: still a results.json with a reason and score 0.
    for (const std::string& what : {std::string("missing"), std::string("broken")}) {
        INFO(what);
        if (what == "broken") {
            fs::create_directories(s.dir / "broken");
            s.write("broken/a.json", "{\"04-cross-the\": ");
        }
        run_command(attn_cmd_with_secret("grade --gradescope --no-variants --exercises 04-cross-the --submission " +
                                         shell_quote(s.path(what)) + " --results " + shell_quote(s.path(what + ".json"))),
                    &code);
        CHECK(code == 0);
        const auto b = nlohmann::json::parse(read_file(s.path(what + ".json")));
        CHECK(b["score"] == 0.0);
        CHECK(b["max_score"] == 4.0);
        CHECK_THAT(b["output"].get<std::string>(), Catch::Contains("could not be graded"));
        CHECK(b["tests"].size() == 1);
    }
}

TEST_CASE("strict exit codes: 0 at full marks, 1 below, 2 for a file that cannot be graded", "[grade][cli]") {
    int code = -1;
    run_command(attn_cmd_with_secret("grade --strict --no-variants " + shell_quote(fixture_file("correct.toml"))), &code);
    CHECK(code == 0);
    run_command(attn_cmd_with_secret("grade --strict --no-variants " + shell_quote(fixture_file("partial.toml"))), &code);
    CHECK(code == 1);
    run_command(attn_cmd_with_secret("grade --no-variants " + shell_quote(fixture_file("partial.toml"))), &code);
    CHECK(code == 0);
    const std::string err = run_command(attn_cmd_with_secret("grade --strict " + shell_quote(fixture_file("malformed/syntax.toml")) + " 2>&1"), &code);
    CHECK(code == 2);
    CHECK_THAT(err, Catch::Contains("syntax.toml:3:1"));
    run_command(attn_cmd_with_secret("grade --exercises 99-none " + shell_quote(fixture_file("correct.toml")) + " 2>&1"), &code);
    CHECK(code == 2);
}

TEST_CASE("without the course secret: one file is checked on the practice numbers, a class is refused", "[grade][cli]") {
    int code = -1;
    const std::string out = run_command("env -u ATTN_COURSE_SECRET " + shell_quote(ATTN_BIN) + " grade --student alice " +
                                            shell_quote(fixture_file("correct.toml")) + " 2>&1",
                                        &code);
    CHECK(code == 0);
    CHECK_THAT(out, Catch::Contains("the practice variant, not a class's numbers"));
    const std::string err = run_command("env -u ATTN_COURSE_SECRET " + shell_quote(ATTN_BIN) + " grade --class " +
                                            shell_quote(fixture_file("class")) + " --gradebook - 2>&1",
                                        &code);
    CHECK(code == 2);
    CHECK_THAT(err, Catch::Contains("course secret"));
}

TEST_CASE("JUnit XML has one failure per part that lost points", "[grade][cli]") {
    scratch_folder s("grade-junit");
    int code = -1;
    run_command(attn_cmd_with_secret("grade --no-variants " + shell_quote(fixture_file("partial.toml")) + " --junit " + shell_quote(s.path("j.xml"))), &code);
    CHECK(code == 0);
    const std::string xml = read_file(s.path("j.xml"));
    CHECK_THAT(xml, Catch::StartsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    CHECK_THAT(xml, Catch::Contains("<testsuite name=\"fixture\" tests=\"4\" failures=\"3\" errors=\"0\">"));
    CHECK_THAT(xml, Catch::Contains("&apos;The&apos;"));  // escaped feedback
}

TEST_CASE("control characters from a submission never reach the terminal raw", "[grade][cli]") {
    scratch_folder s("grade-controls");
    s.write("eve.toml", "student = \"eve\\nTotal 11 / 11 (100.0%)\\u001b[2J\"\n[01-scale]\nanswer = 2.0\n");
    int code = -1;
    const std::string out = run_command(attn_cmd_with_secret("grade --no-variants " + shell_quote(s.path("eve.toml"))), &code);
    CHECK(code == 0);
    CHECK(out.find('\x1b') == std::string::npos);
    CHECK_THAT(out, Catch::Contains("eve\\x0atotal 11 / 11"));
    CHECK_THAT(out, Catch::StartsWith("Student eve\\x0a"));
}

TEST_CASE("an exercise that asks for the scale does not print it in its hand-out", "[grade][cli]") {
    // Every exercise with a part on the `scale` stage, from the lessons themselves.
    const auto set = attn::grade::load_exercise_set(std::string(ATTN_SOURCE_DIR) + "/lessons");
    std::size_t asked = 0;
    for (const auto& x : set.all) {
        bool asks_scale = false;
        for (const auto& p : x.parts) asks_scale = asks_scale || p.stage == "scale";
        if (!asks_scale) continue;
        ++asked;
        INFO(x.id);
        int code = -1;
        const std::string out = run_command(attn_cmd_with_secret("exercise show " + x.id + " --no-variants"), &code);
        CHECK(code == 0);
        CHECK_THAT(out, !Catch::Contains("divide the raw scores by"));
        CHECK_THAT(out, Catch::Contains("one of the parts below"));
    }
    CHECK(asked >= 1);  // lesson 01 asks for it: the check above ran
}

TEST_CASE("a shape answer whose arithmetic overflows costs that part and does not stop the grader", "[grade][cli]") {
    // Nested powers ((d^50)^50)^50 … overflow an int exponent (found by the shape fuzzer);
    // a 64-bit overflow of numbers and a division by zero, likewise: 0 for the part, exit 0.
    const std::string answer = GENERATE(
        std::string(read_file(std::string(ATTN_SOURCE_DIR) +
                              "/tests/fuzz/regressions/shape/nested-powers-exponent-overflow.txt")),
        std::string("999999999999999 * 999999999999999 × 5"), std::string("n / 0"));
    INFO(answer);
    scratch_folder s("grade-hostile-shape");
    s.write("mallory.toml", "[\"05-fr-shape\"]\nanswer = \"" + answer + "\"\n");
    int code = -1;
    const std::string out = run_command(attn_cmd_with_secret("grade --no-variants " + shell_quote(s.path("mallory.toml"))), &code);
    CHECK(code == 0);
    CHECK_THAT(out, Catch::Contains("0/1"));
    CHECK_THAT(out, Catch::Contains("cannot read"));
}
