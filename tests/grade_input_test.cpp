// tests/grade_input_test.cpp — answer files a teacher meets (issue 9, item 9): an
// exercise answered twice in one file is refused with both places, a file in the other
// format says "this looks like TOML/JSON", and control characters in ids and answer
// texts never reach the terminal raw (the real binary, standard output and error).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "grade/submission.hpp"
#include "support/golden.hpp"
#include "support/grade_fixtures.hpp"
#include "support/scratch.hpp"

using namespace attn;
using namespace attn::grade;
using attn::testing::attn_cmd_with_secret;
using attn::testing::run_command;
using attn::testing::scratch_folder;
using attn::testing::shell_quote;
namespace fs = std::filesystem;

namespace {

attn::error refusal(const std::string& text, const std::string& name) {
    try {
        read_submission_text(text, name, name.size() > 5 && name.substr(name.size() - 5) == ".json");
    } catch (const attn::error& e) {
        return e;
    }
    FAIL("accepted " << name << ":\n" << text);
    return attn::error("");
}

}  // namespace

TEST_CASE("an exercise answered twice in one file is refused with both places", "[grade][input]") {
    using row = std::tuple<std::string, std::string, std::string, std::string>;
    auto [name, text, second, first] = GENERATE(table<std::string, std::string, std::string, std::string>({
        row{"a.toml", "student = \"a\"\n[01-scale]\nanswer = 2.0\n\n[answers.01-scale]\nanswer = 3.0\n", "a.toml:5:1", "a.toml:2:1"},
        row{"b.toml", "\"01-scale\" = 1\n[answers]\n\"01-scale\" = 2.0\n", "b.toml:3:14", "b.toml:1:14"},
        row{"c.toml", "[01-scale]\nanswer = 2.0\n[01-scale]\nanswer = 3.0\n", "c.toml:3:1", "c.toml:1:1"},
        row{"d.json", "{\"student\": \"a\",\n \"01-scale\": {\"answer\": 2.0},\n \"answers\": {\"01-scale\": 2}}\n", "d.json:3:26",
            "d.json:2:14"},
        row{"e.json", "{\"student\": \"a\",\n \"01-scale\": {\"answer\": 2.0},\n \"01-scale\": 2}\n", "e.json:3:2", "e.json:2:2"},
    }));
    INFO(name);
    const attn::error e = refusal(text, name);
    CHECK(e.where.str() == second);
    CHECK_THAT(e.what(), Catch::StartsWith(second) && Catch::Contains(first) && Catch::Contains("twice"));
    CHECK((e.reason == "duplicate" || e.reason == "syntax"));
}

TEST_CASE("the same exercise in two files of one student's folder is merged, not refused", "[grade][input]") {
    // Parts split over files are a feature (tests/fixtures/grade/class/bob); only one file
    // answering an exercise twice is refused.
    const scratch_folder s("grade-input");
    s.write("bob/a.toml", "[04-cross-the]\nraw = [1]\n");
    s.write("bob/b.toml", "[04-cross-the]\nweights = [1]\n");
    const submission sub = read_submission_path((s.dir / "bob").string());
    REQUIRE(sub.find("04-cross-the"));
    CHECK(sub.find("04-cross-the")->fields.size() == 2);
}

TEST_CASE("a file in the other format says which it looks like", "[grade][input]") {
    const attn::error toml_in_json = refusal("student = \"a\"\n[01-scale]\nanswer = 2.0\n", "t.json");
    CHECK_THAT(toml_in_json.what(), Catch::Contains("t.json: this looks like TOML, not JSON") && Catch::Contains("rename it .toml"));
    const attn::error json_in_toml = refusal("{\"student\": \"a\", \"01-scale\": {\"answer\": 2.0}}\n", "j.toml");
    CHECK_THAT(json_in_toml.what(), Catch::Contains("j.toml: this looks like JSON, not TOML") && Catch::Contains("rename it .json"));
    // Broken in both formats: the plain syntax error, no guess.
    const attn::error broken = refusal("{\"a\": [1, 2 3]}", "b.json");
    CHECK_THAT(broken.what(), !Catch::Contains("looks like"));
    CHECK(broken.where.str() == "b.json:1:13");
}

TEST_CASE("a swapped format stops attn grade with exit 2 and the hint", "[grade][input][cli]") {
    const scratch_folder s("grade-input");
    const std::string t = s.write("t.json", "student = \"a\"\n[01-scale]\nanswer = 2.0\n");
    int code = -1;
    const std::string out = run_command(attn_cmd_with_secret("grade --no-variants " + shell_quote(t) + " 2>&1"), &code);
    CHECK(code == 2);
    CHECK_THAT(out, Catch::Contains("this looks like TOML, not JSON"));
}

TEST_CASE("ESC and newlines in student, ids and answer texts never reach the terminal raw", "[grade][input][cli]") {
    const scratch_folder s("grade-input");
    // TOML escapes: ESC as \u001b, a newline that would print a fake "Total" line.
    const std::string evil = "\\u001b[2J\\u001b]0;pwned\\u0007\\nTotal 11 / 11 (100.0%)";
    const std::string file = s.write("class/eve.toml", "student = \"mallory" + evil + "\"\n"
                                                       "\"03-why-causal\" = \"" + evil + "\"\n"
                                                       "\"09-data-dependent\" = \"" + evil + "\"\n"
                                                       "\"09-nonlinear\" = [\"a\", \"" + evil + "\"]\n"
                                                       "[\"99-unknown" + evil + "\"]\nanswer = 1\n"
                                                       "[11-families]\n\"encoder" + evil + "\" = \"a\"\n");
    int code = -1;
    const std::string one = run_command(attn_cmd_with_secret("grade --no-variants --review-sheet - " + shell_quote(file) + " 2>&1"), &code);
    CHECK(code == 0);
    const std::string cls = run_command(attn_cmd_with_secret("grade --class " + shell_quote((s.dir / "class").string()) +
                                                         " --gradebook - --review-sheet " +
                                                         shell_quote((s.dir / "sheet.csv").string()) + " 2>&1"),
                                        &code);
    CHECK(code == 0);
    const std::string sheet = attn::testing::read_file((s.dir / "sheet.csv").string());
    for (const std::string* out : {&one, &cls, &sheet}) {
        INFO(*out);
        CHECK(out->find('\x1b') == std::string::npos);
        CHECK(out->find('\x07') == std::string::npos);
        CHECK(out->find("\nTotal 11 / 11") == std::string::npos);  // no forged line
    }
    CHECK_THAT(one, Catch::Contains("\\x1b[2J"));  // shown, visibly escaped
    CHECK_THAT(one, Catch::Contains("99-unknown\\x1b[2J"));
    CHECK_THAT(sheet, Catch::Contains("\\x1b[2J\\x1b]0;pwned\\x07\\x0aTotal 11 / 11"));
}
