// tests/fuzz_replay_test.cpp — replays, in the normal (g++) build, every seed input of
// tests/fuzz/corpus/<target>/ and every crasher kept in tests/fuzz/regressions/<target>/
// through the same target functions libFuzzer runs (tests/support/fuzz_targets.hpp).
// A crash here fails the test run; the sanitizer build also catches UB and leaks.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "support/fuzz_targets.hpp"
#include "support/golden.hpp"

namespace fs = std::filesystem;

TEST_CASE("every fuzz seed and kept crasher runs through its target without crashing", "[fuzz]") {
    const fs::path root = fs::path(ATTN_SOURCE_DIR) / "tests" / "fuzz";
    std::size_t inputs = 0;
    for (const auto& t : attn::fuzz::all_targets()) {
        std::size_t seeds = 0;
        for (const char* kind : {"corpus", "regressions"}) {
            const fs::path dir = root / kind / t.name;
            if (!fs::is_directory(dir)) continue;
            for (const auto& e : fs::directory_iterator(dir)) {
                if (!e.is_regular_file() || e.path().filename().string()[0] == '.') continue;
                const std::string bytes = attn::testing::read_file(e.path().string());
                INFO(t.name << ": " << e.path().string());
                CHECK(t.run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) == 0);
                ++inputs;
                seeds += std::string(kind) == "corpus";
            }
        }
        INFO(t.name);
        CHECK(seeds > 0);  // every target has a seed corpus
    }
    CHECK(inputs > 0);
}
