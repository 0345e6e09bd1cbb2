// tests/grade_items_test.cpp — exercises that are not numbers (issue 9, item 7): choice,
// multi ("select all that apply") and open parts. No text is scored by keywords: a
// negated sentence holds the same words as a right one, so prose is either a pick
// among choices or read by the teacher (the review sheet, `attn grade --reviews`).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "grade/grader.hpp"
#include "grade/reviews.hpp"
#include "io/csv_cell.hpp"
#include "lessons/lesson_loader.hpp"
#include "support/lesson_exercises.hpp"

using namespace attn;
using namespace attn::grade;
using attn::testing::lessons_exercises;

namespace {

io::value_node text(const std::string& s) {
    io::value_node v;
    v.kind = io::value_node::type::string;
    v.text = s;
    v.where = {"answers.toml", 3, 1};
    return v;
}

io::value_node list(const std::vector<std::string>& picks) {
    io::value_node v;
    v.kind = io::value_node::type::array;
    for (const auto& p : picks) v.items.push_back(text(p));
    return v;
}

exercise_result grade_one(const std::string& id, const io::value_node& a, const review_table* reviews = nullptr,
                          const std::string& student = "ana") {
    const exercise* x = lessons_exercises().find(id);
    REQUIRE(x);
    variant_request req;
    req.student = student;
    req.lesson_numbers = true;
    std::vector<std::string> notes, flags;
    return grade_exercise(*x, &a, {req, reviews, notes, flags});
}

const std::string causal_right = "so each position predicts the next token without seeing the tokens after it, as when generating";

}  // namespace

TEST_CASE("no lesson exercise is graded by keywords", "[grade][items]") {
    for (const auto& x : lessons_exercises().all) {
        INFO(x.id);
        const std::string k = x.kind->name;
        CHECK((k == "numeric" || k == "shape" || k == "choice" || k == "multi" || k == "open" || k == "circuit"));
    }
    // The former keyword exercises became exact items or open ones.
    for (const char* id : {"03-why-causal", "06-cross-causal-why", "08-order", "11-families", "12-entries", "14-identical-q"})
        CHECK(lessons_exercises().find(id)->kind->name == std::string("choice"));
    CHECK(lessons_exercises().find("09-nonlinear")->kind->name == std::string("multi"));
    CHECK(lessons_exercises().find("09-data-dependent")->kind->name == std::string("open"));
}

TEST_CASE("a negated or reversed sentence scores 0 for 03-why-causal", "[grade][items]") {
    auto answer = GENERATE(as<std::string>{}, "It has nothing to do with the future.", "so the model can see the future tokens",
                           "So a token cannot look ahead at the future tokens it has to predict.",  // not a choice either
                           "the future", "b", "c");
    INFO(answer);
    const exercise_result r = grade_one("03-why-causal", text(answer));
    CHECK(r.score == 0.0);
    REQUIRE(r.parts.size() == 1);
    CHECK(r.parts[0].status != part_status::correct);
}

TEST_CASE("the right choice scores by its text or its letter, and a wrong one keeps its feedback", "[grade][items]") {
    CHECK(grade_one("03-why-causal", text(causal_right)).score == 1.0);
    CHECK(grade_one("03-why-causal", text("A")).score == 1.0);
    CHECK(grade_one("03-why-causal", text("(a) " + causal_right)).score == 1.0);
    const exercise_result pad = grade_one("03-why-causal", text("to hide the padding tokens"));
    CHECK(pad.parts[0].mistake == "causal-is-padding");
    CHECK_THAT(pad.parts[0].feedback.full(), Catch::Contains("padding masks hide pad tokens"));
    const exercise_result future = grade_one("03-why-causal", text("so the model can see the future tokens"));
    CHECK(future.parts[0].mistake == "causal-shows-future");
    const exercise_result rows = grade_one("03-why-causal", text("d"));
    CHECK(rows.parts[0].mistake.empty());
    CHECK_THAT(rows.parts[0].feedback.full(), Catch::Contains("with or without a mask"));  // [exercise.feedback]
}

TEST_CASE("select all that apply is right only with every right choice and no other", "[grade][items]") {
    // 09-nonlinear: a and b are right, c (softmax) and d (bias) are not.
    using row = std::pair<std::vector<std::string>, double>;
    auto [picks, score] = GENERATE(values<row>({
        {{"a", "b"}, 1.0},
        {{"b", "a"}, 1.0},
        {{"doubling X multiplies the output by 8, not by 2", "A"}, 1.0},
        {{"a"}, 0.0},                 // one right choice missed
        {{"a", "b", "c"}, 0.0},       // a wrong pick
        {{"a", "b", "c", "d"}, 0.0},  // "pick everything" earns nothing
        {{}, 0.0},
    }));
    INFO(picks.size());
    const exercise_result r = grade_one("09-nonlinear", list(picks));
    CHECK(r.score == score);
}

TEST_CASE("a wrong pick among several is named, a missed one only counted", "[grade][items]") {
    const exercise_result r = grade_one("09-nonlinear", list({"a", "c"}));
    CHECK(r.parts[0].mistake == "nonlinear-from-softmax");
    CHECK_THAT(r.parts[0].feedback.full(), Catch::Contains("leaves the softmax out on purpose"));
    CHECK_THAT(r.parts[0].feedback.full(), Catch::Contains("1 right choice not picked"));
    CHECK_THAT(r.parts[0].feedback.full(), !Catch::Contains("doubling"));  // the missed answer is not given away
    const exercise_result bad = grade_one("09-nonlinear", list({"a", "e"}));
    CHECK(bad.parts[0].status == part_status::invalid);
    CHECK(bad.score == 0.0);
}

TEST_CASE("an open answer earns 0 until the teacher's review gives its points", "[grade][items]") {
    const std::string said = "A is computed from X, so the weights change with the input";
    const exercise_result waiting = grade_one("09-data-dependent", text(said));
    CHECK(waiting.score == 0.0);
    CHECK(waiting.parts[0].status == part_status::review);
    CHECK(waiting.parts[0].answer_text == said);

    const std::string sheet = review_sheet_header() + "ana,09-data-dependent,answer,1,0.5,\"half: why linear?\",\"" + said +
                              "\",\nbob,09-data-dependent,answer,1,,,\"not reviewed yet\",\n";
    const review_table t = review_table::parse(sheet, "reviews.csv", lessons_exercises());
    const exercise_result ana = grade_one("09-data-dependent", text(said), &t, " Ana ");  // ids normalised
    CHECK(ana.score == 0.5);
    CHECK(ana.parts[0].status == part_status::partial);
    CHECK_THAT(ana.parts[0].feedback.full(), Catch::Contains("half: why linear?"));
    // The answer changed since the review: back to waiting, with a note.
    variant_request req;
    req.student = "ana";
    std::vector<std::string> notes, flags;
    const io::value_node changed = text("it depends on the data");
    const exercise_result again = grade_exercise(*lessons_exercises().find("09-data-dependent"), &changed, {req, &t, notes, flags});
    CHECK(again.score == 0.0);
    CHECK(again.parts[0].status == part_status::review);
    REQUIRE(notes.size() == 1);
    CHECK_THAT(notes[0], Catch::Contains("reviews.csv:2:1") && Catch::Contains("another answer"));
    // bob's row has no points: not reviewed.
    CHECK(grade_one("09-data-dependent", text("not reviewed yet"), &t, "bob").score == 0.0);
}

TEST_CASE("a review sheet the teacher must fix is refused with its place", "[grade][items]") {
    const std::string h = review_sheet_header();
    using row = std::pair<std::string, std::string>;
    const std::vector<row> rows{
        {h + "ana,09-data-dependent,answer,1,2,,x,\n", "reviews.csv:2:32: points must be a number from 0 to 1"},
        {h + "ana,09-data-dependent,answer,1,-1,,x,\n", "points must be a number from 0 to 1"},
        {h + "ana,09-data-dependent,answer,1,one,,x,\n", "found 'one'"},
        {h + "ana,03-why-causal,answer,1,1,,x,\n", "reviews.csv:2:5: '03-why-causal' part 'answer' is not an open exercise's part"},
        {h + "ana,09-data-dependent,answer,1,1,,x,\nana,09-data-dependent,answer,1,0,,x,\n", "reviewed twice (also at reviews.csv:2:1)"},
        {"name,points\n", "reviews.csv:1:1: the header has no 'student' column"},
        {h + "ana,09-data-dependent,answer,1,1,,\"x\n", "not closed"},
    };
    for (const auto& [sheet, message] : rows) {
        INFO(sheet);
        CHECK_THROWS_WITH(review_table::parse(sheet, "reviews.csv", lessons_exercises()), Catch::Contains(message));
    }
}

TEST_CASE("the review sheet holds one row per open part, spreadsheet- and terminal-safe", "[grade][items]") {
    grade_report r;
    r.student = "=cmd";
    r.exercises.push_back(grade_one("09-data-dependent", text("=HYPERLINK(\"x\")\x1b[2J\nline two")));
    r.exercises.push_back(grade_one("03-why-causal", text("a")));  // not open: no row
    const std::string rows = review_sheet_rows(r, lessons_exercises());
    CHECK(rows.find('\x1b') == std::string::npos);
    CHECK(rows.find("\nline") == std::string::npos);
    CHECK_THAT(rows, Catch::StartsWith("'=cmd,09-data-dependent,answer,1,,,\"'=HYPERLINK(\"\"x\"\")\\x1b[2J\\x0aline two\","));
    CHECK(std::count(rows.begin(), rows.end(), '\n') == 1);
    // What was written reads back, and a review of it applies to the same answer.
    const std::string filled = review_sheet_header() + rows.substr(0, rows.find(",,,")) + ",1,ok," + rows.substr(rows.find(",,,") + 3);
    const review_table t = review_table::parse(filled, "r.csv", lessons_exercises());
    const review* rv = t.find("=cmd", "09-data-dependent", "answer");
    REQUIRE(rv);
    CHECK(rv->points == 1.0);
    CHECK(rv->answer == io::csv_text("=HYPERLINK(\"x\")\x1b[2J\nline two"));
}

TEST_CASE("a lesson still using keyword matching is refused with its place", "[grade][items]") {
    const std::string lesson = "number = 9\ntitle = \"t\"\n[matrices]\nQ = [[1.0, 0.0]]\n[runs.self]\nq = \"Q\"\nk = \"Q\"\nv = \"Q\"\n"
                               "[[step]]\ntitle = \"s\"\n[[exercise]]\nid = \"09-why\"\nkind = \"short\"\nprompt = \"why?\"\npoints = 1\n"
                               "accept = [\"future\"]\n";
    const lessons::lesson l = lessons::load_lesson_text(lesson, "09-x.toml");
    std::vector<lessons::diagnostic> problems;
    CHECK(read_exercises(l, problems).empty());
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].where.line == 13);
    CHECK_THAT(problems[0].message, Catch::Contains("'kind' must be numeric, shape, choice, multi, open or circuit") &&
                                        Catch::Contains("negated sentence"));
}
