// tests/grade_catalogue_test.cpp — the mistake catalogue is one registry, every id in it
// is documented in lessons/README.md and has a fixture (tests/fixtures/grade/
// mistake-ID.toml, numbers from NumPy) whose grading names exactly that mistake.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "grade/grader.hpp"
#include "grade/mistakes.hpp"
#include "support/golden.hpp"

using namespace attn;
using namespace attn::grade;
using attn::testing::read_file;

namespace {

// Lessons 15–19 grade their own stages (grade/pipeline.cpp); their fixtures are the
// newlessons helper's NumPy/autograd checks (tests/python/test_grade_new_lessons.py).
const std::set<std::string> extras{"jacobian_sum_missing", "gradient_not_scaled", "gradient_not_transposed",
                                   "online_not_rescaled",  "rope_wrong_angle",    "window_off_by_one"};

}  // namespace

TEST_CASE("every catalogued mistake is one record with a unique id, a name, a rule and a stage", "[grade][catalogue]") {
    std::set<std::string> ids;
    for (const auto& m : mistake_catalogue()) {
        INFO(m.id);
        CHECK(ids.insert(m.id).second);
        CHECK(std::string(m.name).size() > 0);
        CHECK(std::string(m.applies).size() > 0);
        CHECK(stage_rank(m.first_stage) >= 0);
        CHECK(m.compute != nullptr);
        CHECK(find_mistake(m.id) == &m);
    }
}

TEST_CASE("every catalogued mistake is documented and its fixture is diagnosed as it", "[grade][catalogue]") {
    const std::string guide = read_file(std::string(ATTN_SOURCE_DIR) + "/lessons/README.md");
    const exercise_set set = load_exercise_set(std::string(ATTN_SOURCE_DIR) + "/lessons");
    for (const auto& m : mistake_catalogue()) {
        const std::string id = m.id;
        INFO(id);
        CHECK(guide.find("`" + id + "`") != std::string::npos);
        if (extras.count(id)) continue;
        const std::string path = std::string(ATTN_SOURCE_DIR) + "/tests/fixtures/grade/mistake-" + id + ".toml";
        REQUIRE(std::ifstream(path).good());
        grade_options o;
        o.lesson_numbers = true;
        const grade_report r = grade_submission(read_submission_path(path), set, o);
        const auto found = r.mistake_ids();
        CHECK(std::find(found.begin(), found.end(), id) != found.end());
        CHECK(r.score < r.max);
    }
}
