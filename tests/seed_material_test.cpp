// tests/seed_material_test.cpp — the source material issue 11 found missing, now
// lesson steps, checked against the documents' own numbers and words transcribed
// in golden/seed-002.toml: h_i = Σ_j α_ij v_j written out (lesson 01), the cross,
// self and difference heatmaps and the self- vs cross-attention table (lesson 04),
// the complexity table and "100 × 500 is 20% of 500 × 500" (lesson 05), and
// Concat(head_1 … head_H) W_O for cross-attention (lesson 11), recomputed here
// head by head with the core's single-head attention.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "core/attention.hpp"
#include "core/attention_cost.hpp"
#include "lessons/lesson_loader.hpp"
#include "support/golden.hpp"
#include "support/lesson_files.hpp"

using namespace attn;
using attn::testing::lesson_file;

namespace {

const toml::table& seed() {
    static const toml::table doc = toml::parse_file(std::string(ATTN_SOURCE_DIR) + "/golden/seed-002.toml");
    return doc;
}

std::vector<double> seed_numbers(const std::string& name) {
    std::vector<double> out;
    for (const auto& e : *seed()[name]["values"].as_array()) out.push_back(*e.value<double>());
    return out;
}

std::vector<std::vector<std::string>> text_rows(const std::string& name) {
    std::vector<std::vector<std::string>> out;
    for (const auto& r : *seed()[name]["rows"].as_array()) {
        out.emplace_back();
        for (const auto& e : *r.as_array()) out.back().push_back(*e.value<std::string>());
    }
    return out;
}

// Printed at 4 decimals, our value is the seed's printed value.
bool prints_as_4dp(double ours, double printed) { return std::fabs(ours - printed) <= 0.5e-4 + 1e-12; }

std::string lesson_out(const std::string& args) {
    int code = -1;
    const std::string out = testing::run_command("COLUMNS=80 " + testing::shell_quote(ATTN_BIN) + " lesson " + args +
                                                 " --no-pause --color never 2>&1",
                                                 &code);
    CHECK(code == 0);
    return out;
}

}  // namespace

TEST_CASE("lesson 01 writes h_The = sum of alpha v_j with the seed's weights and output", "[seed][lessons]") {
    const auto l = lesson_file("01-self-attention.toml");
    const auto& self = l.runs.at("self").steps;
    const auto alpha = seed_numbers("self_the_weights");
    const auto h = seed_numbers("self_the_output");
    for (std::size_t j = 0; j < alpha.size(); ++j) CHECK(prints_as_4dp(self.weights(0, j), alpha[j]));
    for (std::size_t c = 0; c < h.size(); ++c) CHECK(prints_as_4dp(self.output(0, c), h[c]));
    const std::string out = lesson_out("1 --step 5");
    CHECK(out.find("h_The = Σ_j α_The,j · v_j") != std::string::npos);
    CHECK(out.find("(eq. 7)") != std::string::npos);
    const char* keys[] = {"The", "cat", "sat", "on", "mat"};
    for (std::size_t j = 0; j < 5; ++j) {
        char term[64];
        std::snprintf(term, sizeof term, "%.4f · v_%s", alpha[j], keys[j]);
        INFO(term);
        CHECK(out.find(term) != std::string::npos);
    }
    CHECK(out.find("= [0.2254, 0.4135, 0.2964, 0.2964]") != std::string::npos);
}

TEST_CASE("lesson 04's difference matrix is cross minus self and its row The is the seed's delta column",
          "[seed][lessons]") {
    const auto l = lesson_file("04-cross-attention.toml");
    const matrix& diff = l.matrices.at("cross_minus_self");
    const matrix& cross = l.runs.at("cross").steps.weights;
    const matrix& self = l.runs.at("self").steps.weights;
    REQUIRE(diff.shape(0) == 5);
    REQUIRE(diff.shape(1) == 5);
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 5; ++j) CHECK(diff(i, j) == Approx(cross(i, j) - self(i, j)).margin(1e-15));
    const auto delta = seed_numbers("delta_the");
    for (std::size_t j = 0; j < delta.size(); ++j) CHECK(prints_as_4dp(diff(0, j), delta[j]));
    // The step shows the three maps and the Δ table with the seed's row.
    const std::string out = lesson_out("4 --step 9");
    CHECK(out.find("Cross-attention weights  [5 × 5]") != std::string::npos);
    CHECK(out.find("Self-attention weights (lesson 01)  [5 × 5]") != std::string::npos);
    CHECK(out.find("Δ = cross − self, shaded  [5 × 5]") != std::string::npos);
    // Δ with its sign always (one sign style): the chapter's difference row for "The".
    CHECK(std::regex_search(out, std::regex("\\n  The +-0\\.0106 +\\+0\\.0147 +-0\\.0003 +-0\\.0091 +\\+0\\.0054\\n")));
}

TEST_CASE("lesson 04 shows the chapter's self- versus cross-attention table row by row", "[seed][lessons]") {
    const std::string out = lesson_out("4 --step 10");
    for (const auto& row : text_rows("self_vs_cross")) {
        INFO(row[0]);
        const auto at = out.find("  " + row[0] + "\n");
        REQUIRE(at != std::string::npos);
        CHECK(out.find("self:  " + row[1] + "\n", at) != std::string::npos);
        CHECK(out.find("cross: " + row[2] + "\n", at) != std::string::npos);
    }
}

TEST_CASE("the counted cost follows the chapter's complexity table", "[seed][core]") {
    auto [n_dec, n_enc, d_k, d_v] = GENERATE(table<std::size_t, std::size_t, std::size_t, std::size_t>(
        {{100, 500, 64, 64}, {1, 500, 64, 32}, {3, 5, 4, 4}, {7, 7, 8, 2}}));
    const attention_cost c = attention_cost_of(n_dec, n_enc, d_k, d_v);
    CHECK(c.score_macs == n_dec * n_enc * d_k);  // Q_dec K_encᵀ: O(N_dec·N_enc·d_k) time
    CHECK(c.softmax_exps == n_dec * n_enc);      // softmax: O(N_dec·N_enc)
    CHECK(c.output_macs == n_dec * n_enc * d_v);  // weights · V_enc: O(N_dec·N_enc·d_v)
    CHECK(c.score_entries == n_dec * n_enc);     // space O(N_dec·N_enc)
    CHECK(c.output_entries == n_dec * d_v);      // space O(N_dec·d_v)
}

TEST_CASE("100 by 500 is the chapter's 20 percent of 500 by 500, and lesson 05 says and counts it", "[seed][lessons]") {
    const auto n_dec = static_cast<std::size_t>(*seed()["entries_share"]["n_dec"].value<int64_t>());
    const auto n_enc = static_cast<std::size_t>(*seed()["entries_share"]["n_enc"].value<int64_t>());
    const double percent = *seed()["entries_share"]["percent"].value<double>();
    const double share = static_cast<double>(attention_cost_of(n_dec, n_enc, 64, 64).score_entries) /
                         static_cast<double>(attention_cost_of(n_enc, n_enc, 64, 64).score_entries);
    CHECK(share * 100.0 == Approx(percent).margin(1e-12));
    const std::string out = lesson_out("5 --step 9");
    CHECK(out.find("only 20% of the entries of a 500 × 500 self-attention matrix") != std::string::npos);
    CHECK(std::regex_search(out, std::regex("\\n  100 × 500 +50,000 +3,200,000 +50,000 +3,200,000 +20%\\n")));
    CHECK(std::regex_search(out, std::regex("\\n  500 × 500 +250,000 .* 100%\\n")));
    for (const auto& row : text_rows("complexity")) {
        INFO(row[0]);
        CHECK(std::regex_search(out, std::regex("\\n  " + std::regex_replace(row[0], std::regex("[.*+?()\\[\\]]"), "\\$&") +
                                                " +" + std::regex_replace(row[1], std::regex("[.*+?()]"), "\\$&") +
                                                " +" + std::regex_replace(row[2], std::regex("[.*+?()]"), "\\$&") + "\\n")));
    }
}

TEST_CASE("lesson 11's multi-head cross-attention is Concat(head_1, head_2) W_O computed head by head", "[lessons]") {
    const auto l = lesson_file("11-decoder-block.toml");
    const matrix x = l.matrices.at("dec.add_norm1.stream");  // [n_tgt, d] the decoder stream: the queries' source
    const matrix e = l.matrices.at("enc.output");            // [n_src, d] the encoder output: keys and values
    const matrix& w_o = l.matrices.at("W_O");                // [d, d]
    // The lesson's cross projections are the identity (I4): Q = X, K = V = E.
    const std::size_t heads = 2, d = x.shape(1), d_head = d / heads;
    matrix concat = xt::zeros<double>({x.shape(0), d});  // [n_tgt, d]
    const auto columns = [](const matrix& m, std::size_t from, std::size_t n) {
        matrix out = xt::zeros<double>({m.shape(0), n});  // [rows, n]
        for (std::size_t i = 0; i < m.shape(0); ++i)
            for (std::size_t c = 0; c < n; ++c) out(i, c) = m(i, from + c);
        return out;
    };
    for (std::size_t h = 0; h < heads; ++h) {
        const matrix q = columns(x, h * d_head, d_head), k = columns(e, h * d_head, d_head);
        const auto head = scaled_dot_product_attention(q, k, k);
        for (std::size_t i = 0; i < x.shape(0); ++i)
            for (std::size_t c = 0; c < d_head; ++c) concat(i, h * d_head + c) = head.output(i, c);
    }
    matrix expected = xt::zeros<double>({x.shape(0), d});  // [n_tgt, d] Concat · W_O
    for (std::size_t i = 0; i < x.shape(0); ++i)
        for (std::size_t j = 0; j < d; ++j)
            for (std::size_t c = 0; c < d; ++c) expected(i, j) += concat(i, c) * w_o(c, j);
    const matrix& shown_concat = l.matrices.at("dec.cross.concat");
    const matrix& shown = l.matrices.at("dec.cross.output");
    for (std::size_t i = 0; i < x.shape(0); ++i)
        for (std::size_t j = 0; j < d; ++j) {
            CHECK(shown_concat(i, j) == Approx(concat(i, j)).margin(1e-12));
            CHECK(shown(i, j) == Approx(expected(i, j)).margin(1e-12));
        }
    const std::string out = lesson_out("11 --step 4");
    CHECK(out.find("MultiHead(Q_dec, K_enc, V_enc)\n        = Concat(head_1, …, head_H) W_O\n") != std::string::npos);
    CHECK(out.find("head_h = CrossAttn(Q_dec W_h^Q, K_enc W_h^K,\n                       V_enc W_h^V)") != std::string::npos);
    CHECK(out.find("MultiHead = Concat(head_1, head_2) W_O  [3 × 4]") != std::string::npos);
}
