// tests/golden_test.cpp — every case of golden/cases/*.tsv runs the real `attn`
// binary and must match golden/<name>.txt byte for byte.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <regex>
#include <string>
#include <vector>

#include "support/golden.hpp"

using namespace attn::testing;

namespace {

struct golden_case {
    std::string name;
    std::string args;
};

std::vector<golden_case> load_cases() {
    // Every golden/cases/*.tsv: "name<TAB>arguments of attn" per line, # comments.
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(std::string(ATTN_SOURCE_DIR) + "/golden/cases"))
        if (e.path().extension() == ".tsv") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    std::vector<golden_case> cases;
    for (const auto& f : files) {
        std::ifstream in(f);
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#') continue;
            const auto tab = line.find('\t');
            if (tab == std::string::npos) continue;
            cases.push_back({line.substr(0, tab), line.substr(tab + 1)});
        }
    }
    return cases;
}

}  // namespace

TEST_CASE("every golden case matches its golden file byte for byte", "[golden]") {
    const auto cases = load_cases();
    REQUIRE(cases.size() >= 2);
    for (const auto& c : cases) {
        SECTION(c.name) {
            int code = -1;
            // Goldens are pinned at 80 columns, whatever the terminal running the tests, and
            // with no saved progress (an empty state folder), whatever the tester answered.
            const std::string no_progress = scratch_path("no-progress-state");
            const std::string out = run_command("COLUMNS=80 XDG_STATE_HOME=" + shell_quote(no_progress) + " " +
                                                shell_quote(ATTN_BIN) + " " + c.args + " 2>&1", &code);
            CHECK(code == 0);
            const auto r = check_golden(std::string(ATTN_SOURCE_DIR) + "/golden/" + c.name + ".txt", out);
            INFO(r.report);
            CHECK(r.matches);
            // Never "nan" in any spelling, not even as a word in prose.
            CHECK_FALSE(std::regex_search(out, std::regex("nan", std::regex::icase)));
        }
    }
}

TEST_CASE("a golden with one changed byte fails with a diff and a bless command", "[golden]") {
    const std::string golden = std::string(ATTN_SOURCE_DIR) + "/golden/04-cross-attention.txt";
    const std::string actual = read_file(golden);
    std::string changed = actual;
    const auto pos = changed.find("0.3123");
    REQUIRE(pos != std::string::npos);
    changed[pos + 5] = '4';  // 0.3123 → 0.3124
    // Compare the changed text against a copy of the golden in a scratch place.
    if (const char* b = std::getenv("ATTN_BLESS"); b && std::string(b) == "1") return;  // blessing run
    const std::string scratch = scratch_path("attn-golden-selftest.txt");
    std::ofstream(scratch, std::ios::binary) << actual;
    const auto r = check_golden(scratch, changed);
    CHECK_FALSE(r.matches);
    CHECK(r.report.find("-") != std::string::npos);
    CHECK(r.report.find("0.3124") != std::string::npos);
    CHECK(r.report.find("tools/bless-goldens") != std::string::npos);
    std::remove(scratch.c_str());
    std::remove((scratch.substr(0, scratch.size() - 4) + ".received.txt").c_str());
}
