// tests/grade_blind_test.cpp — exercise 03-blind ("a query with nothing to see"): the
// query "The" sees no key (padding + causal), so its weights are 0 for every answer that
// follows the mask and carry no credit (lessons/README.md, "Fair credit"). The exercise
// must still be worth its points: the right answer earns them all, and answers that
// follow the mask but are otherwise wrong do not. The right weights are worked out here
// by hand: row "The" all 0, row "cat" 1 on itself (the only key it may see), whatever
// the student's numbers.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "support/golden.hpp"

using namespace attn::testing;
namespace fs = std::filesystem;

namespace {

struct graded {
    double score = -1, max = -1;
    std::string mistake;
};

graded grade_blind(const std::string& weights, const std::string& who) {
    const fs::path file = fs::temp_directory_path() / ("attn-blind-" + std::to_string(::getpid()) + ".toml");
    std::ofstream(file) << "[\"03-blind\"]\nweights = " << weights << "\n";
    int code = -1;
    const std::string out = run_command("ATTN_COURSE_SECRET=blind-secret " + shell_quote(ATTN_BIN) + " grade " +
                                            shell_quote(file.string()) + " " + who + " --format json",
                                        &code);
    fs::remove(file);
    REQUIRE(code == 0);
    const auto j = nlohmann::json::parse(out);
    graded g;
    const auto& x = j["exercises"].at(0);
    g.score = x["score"];
    g.max = x["max_score"];
    const auto& p = x["parts"].at(0);
    if (p.contains("mistake")) g.mistake = p["mistake"]["id"];
    return g;
}

}  // namespace

TEST_CASE("03-blind: the right weights earn every point, on the lesson's numbers and on a student's own", "[grade][fair]") {
    const std::string who = GENERATE(std::string("--no-variants"), std::string("--student zed"), std::string("--student Ann"));
    INFO(who);
    const graded g = grade_blind("[[0, 0, 0, 0, 0], [0, 1, 0, 0, 0]]", who);
    CHECK(g.max == 2.0);
    CHECK(g.score == 2.0);
}

TEST_CASE("03-blind: answers that follow the mask but are otherwise wrong do not get full marks", "[grade][fair]") {
    struct wrong {
        const char* weights;
        double at_most;          // of 2 points
        const char* mistake;     // "" = none named
    };
    const auto w = GENERATE(values<wrong>({
        {"[[0, 0, 0, 0, 0], [0, 0.8, 0, 0, 0]]", 0.0, "rows_not_normalised"},  // the one visible key not given all the weight
        // Zeros everywhere: a placeholder. For zed's numbers q_cat·k_cat = 0, so "no softmax"
        // also gives zeros; a placeholder is never diagnosed, so it earns no mistake credit.
        {"[[0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]", 0.0, ""},
        {"[[0, 0, 0, 0, 0], [0.5, 0.5, 0, 0, 0]]", 0.0, ""},                // "cat" still attends to the padding
        {"[[1, 0, 0, 0, 0], [0, 1, 0, 0, 0]]", 1.0, ""},                    // "The" attends to itself (padding ignored)
        {"[[0.2, 0.2, 0.2, 0.2, 0.2], [0, 1, 0, 0, 0]]", 1.0, "finite_fill"},  // a finite fill: uniform weights
        {"[[\"nan\", \"nan\", \"nan\", \"nan\", \"nan\"], [0, 1, 0, 0, 0]]", 1.0, "all_masked_row"},
    }));
    INFO(w.weights);
    const graded g = grade_blind(w.weights, "--student zed");
    CHECK(g.max == 2.0);
    CHECK(g.score < 2.0);
    CHECK(g.score <= w.at_most + 1e-9);
    CHECK(g.mistake == w.mistake);
}
