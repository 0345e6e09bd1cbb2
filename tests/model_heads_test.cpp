// tests/model_heads_test.cpp — the head detector's patterns and scores worked by hand
// (TransformerLens's head_detector definitions), and one head of a model's forward seen
// as an `attn trace` run (trace/model_head): the model's own numbers, the report within
// 80 columns.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/traced_forward.hpp"
#include "model/head_detector.hpp"
#include "trace/model_export.hpp"
#include "trace/model_head.hpp"
#include "trace/text_width.hpp"
#include "trace/trace_report.hpp"

using namespace attn;
using namespace attn::model;

namespace {

std::vector<double> cells(std::size_t P, std::initializer_list<std::pair<std::size_t, std::size_t>> on) {
    std::vector<double> d(P * P, 0.0);
    for (auto [i, j] : on) d[i * P + j] = 1.0;
    return d;
}

}  // namespace

TEST_CASE("Detection patterns mark the previous token, earlier copies and the token after an earlier copy",
          "[model][heads]") {
    const std::vector<int> t = {5, 7, 5, 7};
    CHECK(detection_pattern(head_kind::previous_token, t) == cells(4, {{1, 0}, {2, 1}, {3, 2}}));
    CHECK(detection_pattern(head_kind::duplicate_token, t) == cells(4, {{2, 0}, {3, 1}}));
    CHECK(detection_pattern(head_kind::induction, t) == cells(4, {{2, 1}, {3, 2}}));
}

TEST_CASE("A head attending evenly to the past scores its share of the pattern's cells", "[model][heads]") {
    architecture c;
    c.n_layer = 1;
    c.n_head = 2;
    forward_acts<double> a;
    a.batch = 1;
    a.n_pos = 4;
    a.tokens = {{5, 7, 5, 7}};
    a.blocks.resize(1);
    a.blocks[0].pattern = act4<double>::from_shape({1, 2, 4, 4});
    a.blocks[0].pattern.fill(0.0);
    for (std::size_t i = 0; i < 4; ++i) {
        for (std::size_t j = 0; j <= i; ++j) a.blocks[0].pattern(0, 0, i, j) = 1.0 / static_cast<double>(i + 1);
        a.blocks[0].pattern(0, 1, i, i == 0 ? 0 : i - 1) = 1.0;  // head 1: a perfect previous-token head
    }
    const head_scores s = detect_heads(a, c);
    // head 0: rows sum to 1, so the score is (Σ of the marked cells) / 4
    CHECK_THAT(s.previous_token[0], Catch::Matchers::WithinAbs((1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 4, 1e-15));
    CHECK_THAT(s.duplicate_token[0], Catch::Matchers::WithinAbs((1.0 / 3 + 1.0 / 4) / 4, 1e-15));
    CHECK_THAT(s.induction[0], Catch::Matchers::WithinAbs((1.0 / 3 + 1.0 / 4) / 4, 1e-15));
    // head 1: 3 of its 4 rows sit on the previous token (row 0 can only see itself)
    CHECK_THAT(s.previous_token[1], Catch::Matchers::WithinAbs(0.75, 1e-15));
    CHECK_THAT(s.duplicate_token[1], Catch::Matchers::WithinAbs(0.0, 1e-15));
    CHECK_THAT(s.induction[1], Catch::Matchers::WithinAbs(0.5, 1e-15));  // (2,1) and (3,2) are previous cells too
}

TEST_CASE("Repeated random tokens are two copies of one draw, the same for a seed", "[model][heads]") {
    const auto t = repeated_random_tokens(50257, 20, 0);
    REQUIRE(t.size() == 40);
    for (std::size_t i = 0; i < 20; ++i) CHECK(t[i] == t[20 + i]);
    for (int id : t) CHECK((id >= 0 && id < 50257));
    CHECK(t == repeated_random_tokens(50257, 20, 0));
    CHECK(t != repeated_random_tokens(50257, 20, 1));
}

TEST_CASE("One head of a model's forward is a trace run of the model's own numbers, shown within 80 columns",
          "[model][heads][trace]") {
    architecture c;
    c.n_layer = 2;
    c.n_head = 2;
    c.n_embd = 16;
    c.vocab_size = 20;
    c.n_positions = 8;
    auto p = zero_params<double>(c);
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    for_each_param(p, [&](const std::string&, param_kind, auto& t) {
        for (auto& x : t) x += u(rng);
    });
    const auto a = trace_stages(p, {{1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1}});
    trace::model_head_choice ch;
    ch.layer = 1;
    ch.head = 1;
    ch.batch = 1;
    ch.tokens = {"The", "␣cat", "␣sat", "␣on", "␣the", "␣mat"};
    ch.title = "blocks.1.attn · head 1 of 2";
    const trace::trace_run r = trace::model_head_run(a, c, ch);
    const attention_steps s = r.head_steps(0, 0);
    const std::size_t P = 6, H = 2, dh = 8;
    for (std::size_t i = 0; i < P; ++i) {
        for (std::size_t d = 0; d < dh; ++d) {
            CHECK(s.q(i, d) == a.blocks[1].q(1, i, 1, d));
            CHECK(s.v(i, d) == a.blocks[1].v(1, i, 1, d));
            CHECK(s.output(i, d) == a.blocks[1].z(1, i, 1, d));
        }
        for (std::size_t j = 0; j < P; ++j) {
            CHECK(s.weights(i, j) == a.blocks[1].pattern(1, 1, i, j));
            if (j <= i) CHECK_THAT(s.scores_masked(i, j), Catch::Matchers::WithinAbs(a.blocks[1].scores(1, 1, i, j), 1e-12));
            else CHECK(std::isinf(s.scores_masked(i, j)));
        }
    }
    CHECK(H == c.n_head);
    trace::report_options ro;
    ro.st.width = 80;
    const std::string tables = trace::render_trace_report(r, ro);
    ro.query = "␣sat";
    const std::string walk = trace::render_trace_report(r, ro);
    CHECK(tables.find("blocks.1.attn · head 1 of 2") != std::string::npos);
    CHECK(walk.find("␣sat") != std::string::npos);
    // Every row of the tables and the heatmap (a line that starts with a token) fits as
    // rendered; titles and the walk-through's long sums are broken at spaces by
    // fit_lines, as `attn model run` prints every report (cli/layout).
    std::istringstream rows(tables);
    std::string line;
    std::size_t token_rows = 0;
    while (std::getline(rows, line)) {
        const bool token_row = line.rfind("  The", 0) == 0 || line.rfind("  ␣", 0) == 0;
        token_rows += token_row;
        INFO(line);
        if (token_row) CHECK(trace::display_width(line) <= 80);
    }
    CHECK(token_rows > 6 * 5);
    const std::string walk_printed = trace::fit_lines(walk, 80);
    CHECK(walk_printed.find("Step 1") != std::string::npos);
    for (const std::string* text : {&tables, &walk_printed}) {
        std::istringstream lines(text == &tables ? trace::fit_lines(tables, 80) : *text);
        while (std::getline(lines, line)) {
            INFO(line);
            CHECK(trace::display_width(line) <= 80);
        }
    }
    trace::model_head_choice bad = ch;
    bad.head = 2;
    CHECK_THROWS_WITH(trace::model_head_run(a, c, bad), Catch::Contains("--head 2 does not exist: the model has 2 heads"));
}

TEST_CASE("The model JSON holds every hook with masked scores null and byte tokens as valid UTF-8",
          "[model][trace]") {
    architecture c;
    c.n_layer = 1;
    c.n_head = 2;
    c.n_embd = 4;
    c.vocab_size = 6;
    c.n_positions = 4;
    c.mlp = mlp_kind::none;
    auto p = zero_params<float>(c);
    for_each_param(p, [&](const std::string&, param_kind, auto& t) {
        float x = 0.1f;
        for (auto& v : t) v += (x = -x * 1.3f);
    });
    const auto a = trace_stages(p, {{1, 2, 3}});
    trace::model_run_meta meta{"test layout", {{"a", "\xe2\x80", "\x9c"}}};  // one character cut in two tokens
    std::string text;
    trace::write_model_json(a, c, meta, [&](const char* d, std::size_t n) { text.append(d, n); });
    const auto j = nlohmann::json::parse(text);
    CHECK(j["tokens"]["ids"] == nlohmann::json::parse("[[1,2,3]]"));
    CHECK(j["tokens"]["text"][0][1] == "\xef\xbf\xbd");  // U+FFFD
    std::vector<std::string> names;
    for (const auto& h : hook_names(c)) names.push_back(h.name);
    std::vector<std::string> got;
    for (const auto& [k, v] : j["stages"].items()) got.push_back(k);
    std::sort(names.begin(), names.end());
    std::sort(got.begin(), got.end());
    CHECK(got == names);
    const auto& s = j["stages"]["blocks.0.attn.hook_attn_scores"];
    CHECK(s["axes"] == nlohmann::json::parse(R"(["batch","head","query_pos","key_pos"])"));
    CHECK(s["shape"] == nlohmann::json::parse("[1,2,3,3]"));
    CHECK(s["data"][0][1][0][1].is_null());   // key 1 is after query 0
    CHECK(s["data"][0][1][1][0].is_number());
    CHECK(static_cast<float>(s["data"][0][1][1][0].get<double>()) == a.blocks[0].scores(0, 1, 1, 0));
}
