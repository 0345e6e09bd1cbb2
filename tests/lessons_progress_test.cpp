// tests/lessons_progress_test.cpp — the progress store of answering in the lesson
// (lessons/progress.*) and the worked solutions it shows (grade/solution.*): states
// never go back from right, the file round-trips, a bad or foreign file is reported
// and ignored, the XDG path rules, and a worked solution that the grader itself marks
// right when it is handed back as the answer.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "grade/grader.hpp"
#include "grade/kinds/kind.hpp"
#include "io/output_writer.hpp"
#include "lessons/lesson_loader.hpp"
#include "lessons/progress.hpp"
#include "support/golden.hpp"

using namespace attn;
using lessons::question_state;
using attn::testing::scratch_path;

namespace {

std::string fresh_dir(const std::string& name) {
    const std::string dir = scratch_path(name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Sets an environment variable for one test and puts the old value back.
struct env_var {
    std::string name;
    std::optional<std::string> old;
    env_var(std::string n, const char* value) : name(std::move(n)) {
        if (const char* o = std::getenv(name.c_str())) old = o;
        if (value) setenv(name.c_str(), value, 1);
        else unsetenv(name.c_str());
    }
    ~env_var() {
        if (old) setenv(name.c_str(), old->c_str(), 1);
        else unsetenv(name.c_str());
    }
};

}  // namespace

TEST_CASE("a question once answered right stays right after a wrong try", "[progress]") {
    lessons::progress p;
    CHECK(p.of("01-scale") == question_state::untried);
    p.record("01-scale", false);
    CHECK(p.of("01-scale") == question_state::tried);
    p.record("01-scale", true);
    p.record("01-scale", false);
    CHECK(p.of("01-scale") == question_state::right);
}

TEST_CASE("the progress file round-trips and lists the questions sorted", "[progress]") {
    const std::string path = fresh_dir("progress-roundtrip") + "/deep/attn/progress.toml";
    lessons::progress p;
    p.record("02-b", false);
    p.record("01-a", true);
    lessons::save_progress(path, p);  // parent folders are created
    const std::string text = lessons::progress_text(p);
    CHECK(text.find("\"01-a\" = \"right\"\n\"02-b\" = \"tried\"\n") != std::string::npos);
    const auto back = lessons::load_progress(path);
    CHECK(back.problem.empty());
    CHECK(back.p.questions == p.questions);
}

TEST_CASE("saving merges with what another window saved meanwhile, and never lowers a state", "[progress]") {
    const std::string path = fresh_dir("progress-merge") + "/attn/progress.toml";
    lessons::progress first, second;  // two viewers, each loaded an empty file
    first.record("01-a", true);
    first.record("02-b", false);
    lessons::save_progress(path, first);
    second.record("02-b", true);
    second.record("03-c", false);
    second.record("01-a", false);  // tried again elsewhere: stays right
    const lessons::progress merged = lessons::save_progress(path, second);
    const auto back = lessons::load_progress(path);
    CHECK(back.p.questions == merged.questions);
    CHECK(back.p.of("01-a") == question_state::right);
    CHECK(back.p.of("02-b") == question_state::right);
    CHECK(back.p.of("03-c") == question_state::tried);
}

TEST_CASE("processes saving at once keep every answer", "[progress]") {
    const std::string path = fresh_dir("progress-race") + "/attn/progress.toml";
    constexpr int writers = 8, answers = 25;
    std::vector<pid_t> kids;
    for (int w = 0; w < writers; ++w) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {  // each child: its own stale copy, saved after every answer
            lessons::progress mine;
            for (int a = 0; a < answers; ++a) {
                mine.record("w" + std::to_string(w) + "-q" + std::to_string(a), a % 2 == 0);
                try {
                    lessons::save_progress(path, mine);
                } catch (...) {
                    ::_exit(1);
                }
            }
            ::_exit(0);
        }
        kids.push_back(pid);
    }
    for (pid_t k : kids) {
        int status = 0;
        ::waitpid(k, &status, 0);
        CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    }
    const auto back = lessons::load_progress(path);
    CHECK(back.problem.empty());
    CHECK(back.p.questions.size() == std::size_t(writers * answers));
    CHECK(back.p.of("w3-q4") == question_state::right);
    CHECK(back.p.of("w7-q5") == question_state::tried);
}

TEST_CASE("a missing progress file is an empty progress, without a complaint", "[progress]") {
    const auto r = lessons::load_progress(fresh_dir("progress-missing") + "/attn/progress.toml");
    CHECK(r.problem.empty());
    CHECK(r.p.questions.empty());
}

TEST_CASE("a progress file that is not one is reported and ignored", "[progress]") {
    const std::string dir = fresh_dir("progress-bad");
    struct bad_case {
        const char* text;
        const char* says;
    };
    const auto c = GENERATE(bad_case{"[questions\n", "progress.toml:1:11: TOML syntax"},
                            bad_case{"questions = 3\n", "progress.toml:1:13: 'questions' must be a table of question ids, found an integer"},
                            bad_case{"[questions]\n\"01-a\" = \"maybe\"\n", "progress.toml:2:10: '01-a' must be \"right\" or \"tried\", found \"maybe\""},
                            bad_case{"[questions]\n\"01-a\" = 1\n", "progress.toml:2:10: '01-a' must be \"right\" or \"tried\", found an integer"},
                            bad_case{"questoins = 1\n", "progress.toml:1:1: unknown key 'questoins' in the progress file (did you mean 'questions'?"});
    write(dir + "/progress.toml", c.text);
    const auto r = lessons::load_progress(dir + "/progress.toml");
    CHECK_THAT(r.problem, Catch::Contains(c.says));
    CHECK(r.p.questions.empty());
}

TEST_CASE("a symbolic link at the progress path is neither followed nor replaced", "[progress]") {
    const std::string dir = fresh_dir("progress-link");
    write(dir + "/elsewhere.toml", "[questions]\n\"01-a\" = \"right\"\n");
    std::filesystem::create_symlink(dir + "/elsewhere.toml", dir + "/progress.toml");
    const auto r = lessons::load_progress(dir + "/progress.toml");
    CHECK_FALSE(r.problem.empty());
    CHECK(r.p.questions.empty());
    CHECK_THROWS_AS(lessons::save_progress(dir + "/progress.toml", lessons::progress{}), io::write_error);
    std::ifstream kept(dir + "/elsewhere.toml");
    std::stringstream ss;
    ss << kept.rdbuf();
    CHECK(ss.str() == "[questions]\n\"01-a\" = \"right\"\n");
}

TEST_CASE("the progress path follows XDG_STATE_HOME, else HOME", "[progress]") {
    SECTION("an absolute XDG_STATE_HOME") {
        env_var s("XDG_STATE_HOME", "/tmp/state");
        CHECK(lessons::progress_path() == "/tmp/state/attn/progress.toml");
    }
    SECTION("a relative XDG_STATE_HOME is ignored, as the XDG spec says") {
        env_var s("XDG_STATE_HOME", "state");
        env_var h("HOME", "/home/ann");
        CHECK(lessons::progress_path() == "/home/ann/.local/state/attn/progress.toml");
    }
    SECTION("neither: nowhere to keep it") {
        env_var s("XDG_STATE_HOME", nullptr);
        env_var h("HOME", nullptr);
        CHECK(lessons::progress_path().empty());
    }
}

TEST_CASE("a worked solution handed back as the answer is graded right", "[progress][solution]") {
    const auto l = lessons::load_lesson(std::string(ATTN_SOURCE_DIR) + "/lessons/01-self-attention.toml");
    std::vector<lessons::diagnostic> problems;
    grade::exercise_set set;
    set.all = grade::read_exercises(l, problems);
    REQUIRE(problems.empty());
    const std::string id = GENERATE(std::string("01-self-weights"), std::string("01-self-cat"));
    const grade::exercise& x = *set.find(id);
    const std::string solution = x.kind->solve(x, grade::variant_request{});

    // Each part's lines after "the answer:" are its rows: "      cat    [0.1, 0.2]".
    io::value_node table;
    table.kind = io::value_node::type::table;
    std::istringstream in(solution);
    std::string line, part;
    bool in_answer = false;
    const std::regex part_head(R"(^  ([a-z_]+): )"), row(R"(^      \S+\s+\[(.*)\]$)");
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, part_head)) {
            part = m[1];
            in_answer = false;
        } else if (line.find("the answer:") != std::string::npos) {
            in_answer = true;
            io::value_node rows;
            rows.kind = io::value_node::type::array;
            table.fields.emplace_back(part, rows);
        } else if (in_answer && std::regex_match(line, m, row)) {
            io::value_node r;
            r.kind = io::value_node::type::array;
            std::stringstream nums(m[1].str());
            for (std::string cell; std::getline(nums, cell, ',');) {
                io::value_node v;
                v.kind = io::value_node::type::number;
                v.number = std::stod(cell);
                r.items.push_back(v);
            }
            table.fields.back().second.items.push_back(r);
        }
    }
    REQUIRE(table.fields.size() == x.parts.size());
    grade::submission sub;
    sub.answers = {{x.id, table}};
    grade::grade_options g;
    g.exercise_ids = {x.id};
    const auto report = grade::grade_submission(sub, set, g);
    INFO(solution);
    CHECK(report.full_marks());
}

TEST_CASE("every question a student can answer in the lesson has a hint", "[progress][solution]") {
    const auto set = grade::load_exercise_set(std::string(ATTN_SOURCE_DIR) + "/lessons");
    REQUIRE(set.all.size() > 40);
    for (const auto& x : set.all) {
        if (x.kind->reviewed) continue;  // read by a teacher, not answered in the lesson
        INFO(x.id);
        CHECK_FALSE(x.hint.empty());
    }
}

TEST_CASE("an open question's worked solution never shows the teacher's rubric", "[progress][solution]") {
    const auto set = grade::load_exercise_set(std::string(ATTN_SOURCE_DIR) + "/lessons");
    std::size_t open = 0;
    for (const auto& x : set.all) {
        if (!x.kind->reviewed) continue;
        ++open;
        const std::string s = x.kind->solve(x, grade::variant_request{});
        for (const auto& p : x.parts) {
            INFO(x.id);
            if (!p.rubric.empty()) CHECK(s.find(p.rubric.substr(0, 20)) == std::string::npos);
        }
        CHECK_THAT(s, Catch::Contains("read by your teacher"));
    }
    CHECK(open >= 1);
}
