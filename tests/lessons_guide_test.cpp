// tests/lessons_guide_test.cpp — the teachers' guide (lessons/README.md) against
// the code: every show kind, derived op and block kind is documented there, and a
// lesson written by hand from the guide runs through the real `attn` binary.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "lessons/lesson_loader.hpp"
#include "lessons/lesson_render.hpp"
#include "lessons/loader_internal.hpp"
#include "lessons/show_kinds.hpp"
#include "support/golden.hpp"

using namespace attn::testing;
namespace fs = std::filesystem;

TEST_CASE("the teachers' guide documents every show kind, op and block", "[lessons]") {
    const std::string guide = read_file((std::string(ATTN_SOURCE_DIR) + "/lessons/README.md"));
    for (const auto& k : attn::lessons::show::all_kinds()) {
        INFO("show kind " << k.name);
        CHECK(guide.find("| `" + k.name + "` |") != std::string::npos);
    }
    for (const auto& o : attn::lessons::detail::derive_ops()) {
        INFO("op " << o.name);
        CHECK(guide.find("| `" + o.name + "` |") != std::string::npos);
    }
    for (const auto& b : attn::lessons::detail::block_kinds()) {
        INFO("block " << b.name);
        CHECK(guide.find("| `" + b.name + "` |") != std::string::npos);
    }
    CHECK(guide.find("# ── exercises (written for the grader; see lessons/README.md) ──") != std::string::npos);
}

TEST_CASE("a lesson written by hand from the guide checks clean and runs as lesson 15", "[lessons][cli]") {
    const std::string fixture = (std::string(ATTN_SOURCE_DIR) + "/tests/fixtures/15-from-the-guide.toml");
    CHECK(attn::lessons::check_lesson_file(fixture).empty());
    const fs::path dir = fs::path(attn::testing::scratch_path("attn-guide-lessons"));
    fs::create_directories(dir);
    fs::copy_file(fixture, dir / "15-from-the-guide.toml", fs::copy_options::overwrite_existing);
    int code = -1;
    const std::string out = run_command("ATTN_LESSONS_DIR=" + shell_quote(dir.string()) + " " + shell_quote(ATTN_BIN) +
                                            " lesson 15 --no-pause --color never 2>&1",
                                        &code);
    fs::remove_all(dir);
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("Lesson 15 · Attention over three fruits") != std::string::npos);
    CHECK(out.find("Step 2/2 · The weights") != std::string::npos);
    CHECK(out.find("apple  1.0000  0.0000  0.0000") != std::string::npos);  // exact zeros print like every number
}

TEST_CASE("every curriculum lesson ends with the exercises marker above its exercises", "[lessons]") {
    const std::string marker = "# ── exercises (written for the grader; see lessons/README.md) ──";
    for (const auto& e : attn::lessons::list_lessons((std::string(ATTN_SOURCE_DIR) + "/lessons"))) {
        INFO(e.path);
        const std::string text = read_file(e.path);
        const auto at = text.find(marker);
        REQUIRE(at != std::string::npos);
        // Nothing but exercises (and comments) may follow the marker.
        const std::string below = text.substr(at + marker.size());
        CHECK(below.find("[[step") == std::string::npos);
        CHECK(below.find("[runs") == std::string::npos);
    }
}
