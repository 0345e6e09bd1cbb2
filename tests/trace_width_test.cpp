// tests/trace_width_test.cpp — fitting text to a width: lines broken at spaces and
// never inside a number, prose re-wrapped only where it does not fit, tables split
// into column blocks that repeat the row labels, long tables shown by their ends.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "trace/table.hpp"
#include "trace/text_width.hpp"
#include "support/text_checks.hpp"

using namespace attn;
using attn::testing::lines_of;

namespace {

std::size_t widest(const std::string& text) {
    std::size_t w = 0;
    for (const auto& l : lines_of(text)) w = std::max(w, trace::display_width(l));
    return w;
}

}  // namespace

TEST_CASE("display width counts Hangul as two columns and colour sequences as none", "[trace][width]") {
    CHECK(trace::display_width("고양이가") == 8);
    CHECK(trace::display_width("\x1b[1;33mcat\x1b[0m") == 3);
    CHECK(trace::display_width("√d_k") == 4);
}

TEST_CASE("words fill lines under an indent, wide characters counted by their columns", "[trace][width]") {
    CHECK(trace::wrap_words("aa bb cc", "  ", 7) == "  aa bb\n  cc\n");  // "  aa bb cc" is 10 columns
    CHECK(trace::wrap_words("고양이가 cat", "", 11) == "고양이가\ncat\n");  // 8 + 1 + 3 columns
    CHECK(trace::wrap_words("고양이가 cat", "", 12) == "고양이가 cat\n");
    CHECK(trace::wrap_words("averyveryverylongword x", "> ", 6) == "> averyveryverylongword\n> x\n");  // never cut
    CHECK(trace::wrap_words("", "  ") == "");
}

TEST_CASE("a long line breaks at spaces, under its indent, and keeps every number whole", "[trace][width]") {
    const std::string line = "  K[The] = [0.0, 1.0, 0.0, 1.0]   1.0×0.0 + 0.0×1.0 + 1.0×0.0 + 0.0×1.0 = -0.0033";
    const int width = GENERATE(20, 30, 40, 60);
    const std::string fitted = trace::fit_line(line, static_cast<std::size_t>(width));
    CHECK(widest(fitted) <= static_cast<std::size_t>(width));
    const auto pieces = lines_of(fitted);
    REQUIRE(pieces.size() > 1);
    for (std::size_t i = 1; i < pieces.size(); ++i) CHECK(pieces[i].rfind("    ", 0) == 0);
    CHECK(fitted.find("-0.0033") != std::string::npos);
    CHECK(fitted.find("1.0×0.0") != std::string::npos);
}

TEST_CASE("a bulleted line continues under the text after its bullet", "[trace][width]") {
    const std::string fitted = trace::fit_line("  • a projection changes only the last axis of the tensor", 30);
    const auto pieces = lines_of(fitted);
    REQUIRE(pieces.size() >= 2);
    for (std::size_t i = 1; i < pieces.size(); ++i) {
        CHECK(pieces[i].rfind("    ", 0) == 0);
        CHECK(pieces[i][4] != ' ');
    }
}

TEST_CASE("prose that fits is kept as written; a paragraph that does not is re-wrapped", "[trace][width]") {
    const std::string text = "One short line.\nAnother short line.\n\nA much longer line that will not fit in the width.\n"
                             "  indented formula stays\n";
    CHECK(trace::wrap_prose(text, 80) == text);
    const std::string narrow = trace::wrap_prose(text, 24);
    CHECK(widest(narrow) <= 24);
    CHECK(narrow.find("One short line.\nAnother short line.\n\nA much longer line that\nwill not fit in the\nwidth.\n") == 0);
    CHECK(narrow.find("  indented formula stays\n") != std::string::npos);
}

TEST_CASE("a table wider than the width is split into column blocks with the row labels repeated", "[trace][width]") {
    matrix m = xt::zeros<double>({2, 12});
    for (std::size_t j = 0; j < 12; ++j) m(1, j) = -1234.5 - static_cast<double>(j);
    const auto t = trace::make_table("Wide", "rows: tokens", "tok", {"alpha", "beta"}, trace::dimension_labels(12), m, 4);
    trace::style st;
    st.width = 60;
    const std::string out = trace::render(t, st);
    CHECK(widest(out) <= 60);
    std::size_t headers = 0, betas = 0;
    for (const auto& l : lines_of(out)) {
        headers += l.rfind("  tok", 0) == 0;
        betas += l.rfind("  beta", 0) == 0;
    }
    CHECK(headers >= 3);
    CHECK(betas == headers);
    for (std::size_t j = 0; j < 12; ++j) {
        const std::string label = " d" + std::to_string(j);
        CHECK((out.find(label + " ") != std::string::npos || out.find(label + "\n") != std::string::npos));
    }
    st.width = 200;
    CHECK(lines_of(trace::render(t, st)).size() == 4);  // title, header, two rows: no split
}

TEST_CASE("a table of 512 columns shows its ends around … unless full", "[trace][width]") {
    matrix m = xt::ones<double>({1, 512});
    const auto t = trace::make_table("Long", "", "q", {"cat"}, trace::dimension_labels(512), m, 2);
    trace::style st;
    const std::string out = trace::render(t, st);
    CHECK(out.find("d0") != std::string::npos);
    CHECK(out.find("d511") != std::string::npos);
    CHECK(out.find("d100") == std::string::npos);
    CHECK(out.find("…") != std::string::npos);
    st.full = true;
    const std::string whole = trace::render(t, st);
    CHECK(whole.find("d100") != std::string::npos);
    CHECK(widest(whole) <= 80);
}
