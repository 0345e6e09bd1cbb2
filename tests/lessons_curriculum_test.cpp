// tests/lessons_curriculum_test.cpp — the numbers the curriculum promises (issue 3's
// table), checked on the lessons' own runs with tolerances or exact equality,
// independent of how the goldens print them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "lessons/lesson_loader.hpp"
#include "lessons/lesson_render.hpp"
#include "trace/text_width.hpp"
#include "support/lesson_files.hpp"

using namespace attn;
using attn::testing::lesson_no;

namespace {

}  // namespace

TEST_CASE("lesson 14 with decoder_scale ones reproduces lesson 01 bit for bit", "[lessons]") {
    const auto l1 = lesson_no(1);
    const auto l14 = lesson_no(14);
    const auto& a = l1.runs.at("self").steps;
    const auto& b = l14.runs.at("same").steps;
    REQUIRE(a.weights.shape() == b.weights.shape());
    REQUIRE(a.output.shape() == b.output.shape());
    for (std::size_t i = 0; i < a.weights.size(); ++i) CHECK(a.weights.data()[i] == b.weights.data()[i]);
    for (std::size_t i = 0; i < a.output.size(); ++i) CHECK(a.output.data()[i] == b.output.data()[i]);
    // ...whereas lesson 04's decoder scale does change them.
    const auto l4 = lesson_no(4);
    const auto& c = l4.runs.at("cross").steps;
    CHECK(c.weights(0, 1) != Approx(a.weights(0, 1)).margin(1e-3));
}

TEST_CASE("lesson 03 blocks the future with weights of exactly zero, -1e5 or -inf alike", "[lessons]") {
    const auto l = lesson_no(3);
    for (const char* run : {"causal", "causal_1e5"}) {
        INFO(run);
        const auto& w = l.runs.at(run).steps.weights;
        for (std::size_t i = 0; i < 5; ++i) {
            double sum = 0;
            for (std::size_t j = 0; j < 5; ++j) {
                if (j > i) CHECK(w(i, j) == 0.0);
                else CHECK(w(i, j) > 0.0);
                sum += w(i, j);
            }
            CHECK(sum == Approx(1.0).margin(1e-12));
        }
        CHECK(w(1, 0) == Approx(std::exp(1.5) / (std::exp(1.5) + 1.0)).margin(1e-12));
    }
    // The last row sees everything: it equals the unmasked row of lesson 01.
    const auto l1 = lesson_no(1);
    const auto& full = l1.runs.at("self").steps.weights;
    for (std::size_t j = 0; j < 5; ++j) CHECK(l.runs.at("causal").steps.weights(4, j) == Approx(full(4, j)).margin(1e-15));
    // The padded-and-causal row has nothing to see: zeros, flagged, no NaN.
    const auto& blind = l.runs.at("blind").steps;
    CHECK(blind.row_fully_masked[0]);
    for (std::size_t j = 0; j < 5; ++j) CHECK(blind.weights(0, j) == 0.0);
}

TEST_CASE("lesson 06 keeps ratios among visible keys and zeroes the padding", "[lessons]") {
    const auto l = lesson_no(6);
    const auto& p = l.runs.at("padded").steps.weights;
    const auto& c = l.runs.at("cross").steps.weights;
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK(p(i, 3) == 0.0);
        CHECK(p(i, 4) == 0.0);
        CHECK(p(i, 1) / p(i, 0) == Approx(c(i, 1) / c(i, 0)).epsilon(1e-12));
    }
    // The wrongly causal cross-attention: "Le" reads only "The".
    const auto& wc = l.runs.at("wrong_causal").steps.weights;
    CHECK(wc(0, 0) == 1.0);
    for (std::size_t j = 1; j < 5; ++j) CHECK(wc(0, j) == 0.0);
}

TEST_CASE("lesson 05 is 3 by 5 and equals the first rows of lesson 04", "[lessons]") {
    const auto l5 = lesson_no(5);
    const auto l4 = lesson_no(4);
    const auto& fr = l5.runs.at("fr").steps;
    const auto& cross = l4.runs.at("cross").steps;
    REQUIRE(fr.weights.shape(0) == 3);
    REQUIRE(fr.weights.shape(1) == 5);
    REQUIRE(fr.output.shape(1) == 4);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 5; ++j) CHECK(fr.weights(i, j) == cross.weights(i, j));
}

TEST_CASE("lesson 14's caption words look at the patches they name", "[lessons]") {
    const auto l = lesson_no(14);
    const auto& w = l.runs.at("caption").steps.weights;  // [3 caption words, 4 patches]
    REQUIRE(w.shape(0) == 3);
    REQUIRE(w.shape(1) == 4);
    auto argmax = [&](std::size_t i) {
        std::size_t best = 0;
        for (std::size_t j = 1; j < 4; ++j)
            if (w(i, j) > w(i, best)) best = j;
        return best;
    };
    CHECK(argmax(0) == 2);  // cat → cat patch
    CHECK(argmax(2) == 3);  // grass → grass patch
    CHECK(w(1, 2) == Approx(w(1, 3)).margin(1e-15));  // "on" splits between cat and grass
    // An independent softmax of the "cat" row's scaled scores [0.5, 0.125, 2, 0].
    const double e[4] = {std::exp(0.5), std::exp(0.125), std::exp(2.0), std::exp(0.0)};
    const double s = e[0] + e[1] + e[2] + e[3];
    for (std::size_t j = 0; j < 4; ++j) CHECK(w(0, j) == Approx(e[j] / s).margin(1e-12));
}

TEST_CASE("every lesson file loads, checks clean and renders without nan", "[lessons]") {
    const auto all = lessons::list_lessons((std::string(ATTN_SOURCE_DIR) + "/lessons"));
    REQUIRE(all.size() >= 6);
    for (const auto& e : all) {
        INFO(e.path);
        CHECK(lessons::check_lesson_file(e.path).empty());
        const auto l = lessons::load_lesson(e.path);
        CHECK(l.number == e.number);
        std::ostringstream out;
        lessons::render_lesson(l, out, {});
        CHECK(out.str().find("nan") == std::string::npos);
        CHECK(out.str().find("-0.0000") == std::string::npos);
    }
}

TEST_CASE("lesson 05's Hangul rows line up with the header in display columns", "[lessons]") {
    const auto l = lesson_no(5);
    const auto korean = std::find_if(l.steps.begin(), l.steps.end(),
                                     [](const auto& s) { return s.title.find("고양이가") != std::string::npos; });
    REQUIRE(korean != l.steps.end());
    const auto& last = *korean;
    REQUIRE(last.show.size() == 2);
    const std::string table = lessons::render_show(l, last.show[0], trace::style{});
    std::istringstream lines(table);
    std::string line;
    std::vector<std::size_t> widths;
    std::getline(lines, line);  // the title
    while (std::getline(lines, line))
        if (line.rfind("  (", 0) != 0) widths.push_back(trace::display_width(line));  // not the axes line
    REQUIRE(widths.size() == 3);  // header, 고양이가, 앉았다
    CHECK(widths[0] == widths[1]);
    CHECK(widths[1] == widths[2]);
    CHECK(table.find("고양이가") != std::string::npos);
}
