// tests/trace_render_test.cpp — the terminal heatmap (shades, colours, Hangul
// alignment), the HTML report's cells and escaping.
// (Atomic file writing is tested with the output writer, tests/io_output_test.cpp.)
#include <catch2/catch.hpp>

#include "support/golden.hpp"

#include <filesystem>
#include <fstream>

#include "trace/heatmap.hpp"
#include "trace/html_report.hpp"
#include "trace/text_width.hpp"

using namespace attn;
using namespace attn::trace;
namespace fs = std::filesystem;

namespace {

// The lines that end in '\n' (a last line without one is left out).
std::vector<std::string> ended_lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t p; (p = text.find('\n', start)) != std::string::npos; start = p + 1) out.push_back(text.substr(start, p - start));
    return out;
}

}  // namespace

TEST_CASE("shades follow the quarter thresholds of the value range", "[trace]") {
    auto [t, shade] = GENERATE(Catch::Generators::table<double, std::string>({
        {0.0, "░"}, {0.2499, "░"}, {0.25, "▒"}, {0.4999, "▒"}, {0.5, "▓"}, {0.75, "█"}, {1.0, "█"}}));
    CHECK(shade_for(t) == shade);
}

TEST_CASE("a plain heatmap aligns Hangul labels and marks blocked cells", "[trace]") {
    const matrix w = {{1.0, 0.0}, {0.3, 0.7}};  // [n_q, n_k]
    const bool_matrix attend = {{true, false}, {true, true}};
    heatmap_input in;
    in.title = "weights";
    in.row_labels = {"고양이가", "a"};
    in.col_labels = {"잔다", "x"};
    in.values = &w;
    in.attend = &attend;
    in.unit_range = true;
    const auto lines = ended_lines_of(render_heatmap(in, heatmap_style{}));
    REQUIRE(lines.size() == 5);
    CHECK(lines[1] == "           잔다    x");
    CHECK(lines[2] == "  고양이가 ████    ·");
    CHECK(lines[3] == "  a        ▒▒▒▒ ▓▓▓▓");
    // Header and rows occupy the same terminal columns.
    CHECK(display_width(lines[1]) == display_width(lines[2]));
    CHECK(display_width(lines[2]) == display_width(lines[3]));
    CHECK(lines[4] == "  legend: ░ < 0.25 ≤ ▒ < 0.50 ≤ ▓ < 0.75 ≤ █ (range 0.00 .. 1.00)   · blocked");
}

TEST_CASE("a heatmap legend is broken between its parts to fit the width", "[trace]") {
    const matrix s = {{-0.715, 0.88}, {0.1, 0.2}};  // [2, 2] scaled scores: a signed range, 3 decimals
    const bool_matrix attend = {{true, true}, {true, false}};
    heatmap_input in;
    in.title = "scaled";
    in.row_labels = {"a", "b"};
    in.col_labels = {"x", "y"};
    in.values = &s;
    in.attend = &attend;
    const std::size_t width = GENERATE(as<std::size_t>{}, 40, 60, 80, 120);
    in.width = width;
    const std::string out = render_heatmap(in, heatmap_style{});
    const auto lines = ended_lines_of(out);
    for (std::size_t i = 4; i < lines.size(); ++i) CHECK(display_width(lines[i]) <= width);  // the legend
    // No part is split: each number keeps its shade, and "· blocked" stays whole.
    CHECK(out.find("≤ ▒ < 0.08") != std::string::npos);
    CHECK(out.find("· blocked") != std::string::npos);
    CHECK(out.find("(range -0.715 .. 0.880)") != std::string::npos);
    if (width >= 120) CHECK(lines.size() == 5);  // all of it on one line
    else CHECK(lines.size() > 5);
}

TEST_CASE("a command in backticks is never broken over two lines when it fits one", "[trace]") {
    const std::string prose = "Check it with your own numbers (`attn exercise show 03-causal-cat --student YOU`) and go on.";
    const std::size_t width = GENERATE(as<std::size_t>{}, 50, 60, 80);
    for (const auto& text : {fit_line(prose, width), wrap_prose(prose, width)}) {
        CHECK(text.find("(`attn exercise show 03-causal-cat --student YOU`)") != std::string::npos);
        for (const auto& line : ended_lines_of(text + "\n")) CHECK(display_width(line) <= width);
    }
    // Wider than the whole line: broken at spaces as any other words.
    CHECK(fit_line(prose, 30).find("`attn exercise show 03-causal-cat --student YOU`") == std::string::npos);
}

TEST_CASE("a line that only looks like a numbered item continues its sentence", "[trace]") {
    const std::string text =
        "A batch of 2 sentence pairs, 3 target and 5 source tokens, d = 8, d_q = d_v =\n"
        "4. Every symbol is replaced by its value; the order of the axes never changes.";
    // ... and an equation stays whole: "d = 8" is never cut at its "=".
    CHECK(wrap_prose(text, 60) ==
          "A batch of 2 sentence pairs, 3 target and 5 source tokens,\n"
          "d = 8, d_q = d_v = 4. Every symbol is replaced by its value;\n"
          "the order of the axes never changes.");
    // After a line that ends with ':' the numbers are a list and stay one item a line.
    const std::string list = "Three steps, each one its own line when it fits here:\n1. scores\n2. softmax\n3. weighted sum";
    CHECK(wrap_prose(list, 40) == "Three steps, each one its own line when\nit fits here:\n1. scores\n2. softmax\n3. weighted sum");
}

TEST_CASE("a colour heatmap uses 256-colour or truecolor backgrounds and no shades", "[trace]") {
    const matrix s = {{-1.0, 3.0}};  // [1, 2] scores: shaded over min..max
    heatmap_input in;
    in.title = "scores";
    in.row_labels = {"q"};
    in.col_labels = {"k0", "k1"};
    in.values = &s;
    const std::string c256 = render_heatmap(in, heatmap_style{true, false});
    const std::string c24 = render_heatmap(in, heatmap_style{true, true});
    CHECK(c256.find("\x1b[48;5;") != std::string::npos);
    CHECK(c24.find("\x1b[48;2;68;1;84m") != std::string::npos);     // the minimum: the ramp's dark end
    CHECK(c24.find("\x1b[48;2;253;231;37m") != std::string::npos);  // the maximum: its bright end
    CHECK(c256.find("█") == std::string::npos);
    CHECK(c24.find("-1.000") != std::string::npos);
    CHECK(c24.find("3.000") != std::string::npos);
    CHECK(c24.find("\x1b[97m -1.00\x1b[0m") != std::string::npos);  // the value over its colour
    CHECK(c24.find("\x1b[30m  3.00\x1b[0m") != std::string::npos);
}

TEST_CASE("html escaping covers markup and quotes", "[trace]") {
    CHECK(html_escape("<b>\"a\" & 'b'</b>") == "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;");
}

