// tests/grade_class_test.cpp — the hand-made class of tests/fixtures/grade/class-cheaters/
// (class-cheaters.md beside it says who is who), graded by the real binary with the course secret as
// a teacher would: `attn grade --class` on per-student numbers. Expected points come from
// the rules of lessons/README.md ("Fair credit"), never from the tool's output:
//   correct work → 100%; a named mistake costs 50% of its exercise, once; a negated
//   sentence scores 0; placeholders and copies earn ≤ 20% of the numeric points and a
//   copy is flagged "matches the numbers of student X"; a classmate's file is graded as
//   its submitter with the mismatch noted; a malformed file is not gradable with its
//   reason and place, at 0, and the class goes on.
// Also the review round trip of open exercises through the binary (--review-sheet, --reviews).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "support/golden.hpp"

using attn::testing::read_file;
using attn::testing::run_command;
using attn::testing::shell_quote;
namespace fs = std::filesystem;

namespace {

const std::string source = ATTN_SOURCE_DIR;
const std::string fixtures = source + "/tests/fixtures/grade/";

// The assignment: five per-student numeric exercises and three exact items.
const std::map<std::string, double> numeric_points{
    {"04-cross-the", 4}, {"03-causal-cat", 3}, {"06-padded", 4}, {"03-blind", 2}, {"09-xxtx", 2}};
const std::map<std::string, double> other_points{{"03-why-causal", 1}, {"05-fr-shape", 1}, {"09-nonlinear", 1}};
const std::string assignment = "04-cross-the,03-causal-cat,06-padded,03-blind,09-xxtx,03-why-causal,05-fr-shape,09-nonlinear";

double sum_of(const std::map<std::string, double>& m) {
    double s = 0;
    for (const auto& [id, p] : m) s += p;
    return s;
}

// RFC 4180 rows: quoted cells may hold commas and doubled quotes.
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
    std::vector<std::vector<std::string>> rows(1);
    std::string cell;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += text[++i];
            else if (c == '"') quoted = false;
            else cell += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rows.back().push_back(cell);
            cell.clear();
        } else if (c == '\n') {
            rows.back().push_back(cell);
            cell.clear();
            rows.emplace_back();
        } else {
            cell += c;
        }
    }
    if (rows.back().empty()) rows.pop_back();
    return rows;
}

// student → column → cell of the gradebook.
using gradebook = std::map<std::string, std::map<std::string, std::string>>;

gradebook grade_class(const std::string& dir, const std::string& exercises, const std::string& extra = "") {
    int code = -1;
    const std::string out = run_command(shell_quote(ATTN_BIN) + " grade --class " + shell_quote(dir) + " --secret-file " +
                                            shell_quote(fixtures + "course.secret") + " --exercises " + exercises +
                                            " --gradebook - " + extra + " 2>/dev/null",
                                        &code);
    REQUIRE(code == 0);
    const auto rows = csv_rows(out);
    REQUIRE(rows.size() > 1);
    gradebook book;
    for (std::size_t r = 1; r < rows.size(); ++r) {
        REQUIRE(rows[r].size() == rows[0].size());
        for (std::size_t c = 0; c < rows[0].size(); ++c) book[rows[r][0]][rows[0][c]] = rows[r][c];
    }
    return book;
}

double numeric_score(std::map<std::string, std::string>& row) {
    double s = 0;
    for (const auto& [id, p] : numeric_points) s += std::stod(row[id]);
    return s;
}

const gradebook& the_class() {
    static const gradebook book = grade_class(fixtures + "class-cheaters", assignment);
    return book;
}

}  // namespace

TEST_CASE("the hand-made class: every submission has its row, the broken ones too", "[grade][class][cli]") {
    const gradebook& book = the_class();
    CHECK(book.size() == 38);  // 33 graded + 5 not gradable; none stops the class (vic's two files are one row)
    const double max = sum_of(numeric_points) + sum_of(other_points);
    for (const auto& [student, row] : book) {
        INFO(student);
        CHECK(std::stod(row.at("max")) == max);
    }
}

TEST_CASE("the hand-made class: correct work is 100% in TOML and in JSON, with no diagnosis", "[grade][class][cli]") {
    auto student = GENERATE(as<std::string>{}, "ana", "ben", "chen");
    INFO(student);
    auto row = the_class().at(student);
    CHECK(row["percent"] == "100.0");
    CHECK(row["mistakes"].empty());
    CHECK(row["notes"].empty());
}

TEST_CASE("the hand-made class: each catalogued mistake is named and costs half its exercise", "[grade][class][cli]") {
    using row_t = std::pair<std::string, std::string>;  // mistake id, the exercise it is made in
    auto [mistake, exercise] = GENERATE(values<row_t>({
        {"no_scaling", "04-cross-the"}, {"scaled_by_d", "04-cross-the"}, {"no_softmax", "04-cross-the"},
        {"rows_not_normalised", "04-cross-the"}, {"transposed_scores", "04-cross-the"},
        {"queries_from_encoder", "04-cross-the"}, {"k_v_swapped", "04-cross-the"}, {"rounded_early", "04-cross-the"},
        {"weights_rounded", "04-cross-the"}, {"softmax_wrong_axis", "03-causal-cat"}, {"weights_transposed", "03-causal-cat"},
        {"mask_missing", "03-causal-cat"}, {"mask_reversed", "06-padded"}, {"finite_fill", "03-blind"},
        {"all_masked_row", "03-blind"}, {"gram_xtx", "09-xxtx"}, {"softmax_added", "09-xxtx"}, {"scaled_anyway", "09-xxtx"},
    }));
    std::string student = "m-" + mistake;
    for (auto& c : student)
        if (c == '_') c = '-';
    INFO(student);
    auto row = the_class().at(student);
    CHECK_THAT(row["mistakes"], Catch::Contains(mistake));
    // "a named mistake costs 50% of the exercise, once, and never lands on a right part": the
    // early-rounded weights' raw, scaled and weights are right (3 of 04-cross-the's 4 points).
    const double cost = mistake == "weights_rounded" ? 1.0 : 0.5 * numeric_points.at(exercise);
    CHECK(std::stod(row[exercise]) == Approx(numeric_points.at(exercise) - cost));
    CHECK(std::stod(row["total"]) == Approx(sum_of(numeric_points) + sum_of(other_points) - cost));
}

TEST_CASE("the hand-made class: a negated sentence scores 0 and nothing else is lost", "[grade][class][cli]") {
    auto row = the_class().at("nora");
    CHECK(row["03-why-causal"] == "0");
    CHECK(std::stod(row["total"]) == Approx(sum_of(numeric_points) + sum_of(other_points) - 1));
}

TEST_CASE("the hand-made class: placeholders earn at most 20% of the numeric points", "[grade][class][cli]") {
    auto row = the_class().at("pat");
    CHECK(numeric_score(row) <= 0.2 * sum_of(numeric_points));
    CHECK_THAT(row["notes"], !Catch::Contains("matches the numbers of student"));
    // Constants are not "someone else's numbers": a placeholder is not called a copy.
    CHECK_THAT(row["notes"], !Catch::Contains("someone else's numbers"));
}

TEST_CASE("the hand-made class: a copy earns at most 20% of the numeric points and is flagged", "[grade][class][cli]") {
    auto carl = the_class().at("carl");  // ana's answers under his own name
    CHECK(numeric_score(carl) <= 0.2 * sum_of(numeric_points));
    CHECK_THAT(carl["notes"], Catch::Contains("matches the numbers of student ana"));
    auto dan = the_class().at("dan");  // ben's file handed in unchanged: it says student = "ben"
    CHECK(numeric_score(dan) <= 0.2 * sum_of(numeric_points));
    CHECK_THAT(dan["notes"], Catch::Contains("the file's student key says 'ben' (graded as 'dan', its submitter)"));
    CHECK_THAT(dan["notes"], Catch::Contains("matches the numbers of student ben"));
    CHECK(the_class().at("ben").at("percent") == "100.0");  // the victim keeps the marks
}

TEST_CASE("the hand-made class: a copy with noise below the tolerance is flagged with its source", "[grade][class][cli]") {
    auto carla = the_class().at("carla");  // ana's answers, each number moved by up to 4e-4; her own 03-blind and 09-xxtx
    double copied = 0;
    for (const char* ex : {"04-cross-the", "03-causal-cat", "06-padded"}) copied += std::stod(carla[ex]);
    CHECK(copied <= 0.2 * (numeric_points.at("04-cross-the") + numeric_points.at("03-causal-cat") + numeric_points.at("06-padded")));
    CHECK_THAT(carla["notes"], Catch::Contains("matches the numbers of student ana: 9 of 11 numeric parts "
                                               "(04-cross-the, 03-causal-cat, 06-padded)"));
    CHECK(the_class().at("ana").at("notes").empty());  // the source is not accused
}

TEST_CASE("the hand-made class: a mixed copy is flagged with the copied share", "[grade][class][cli]") {
    auto mo = the_class().at("mo");  // his own 04-cross-the (4 parts right) and 09-xxtx, ana's 03-causal-cat and 06-padded (5 parts)
    CHECK(std::stod(mo["04-cross-the"]) == Approx(4));
    CHECK_THAT(mo["notes"], Catch::Contains("matches the numbers of student ana: 5 of 11 numeric parts (03-causal-cat, 06-padded)"));
}

TEST_CASE("the hand-made class: honest mistakes are never called copies", "[grade][class][cli]") {
    auto who = GENERATE(as<std::string>{}, "max", "wes", "rory", "pat");  // mask after softmax, another query row, rounding, placeholders
    INFO(who);
    auto row = the_class().at(who);
    CHECK_THAT(row["notes"], !Catch::Contains("numbers of student"));
    CHECK_THAT(row["notes"], !Catch::Contains("someone else"));
}

TEST_CASE("the hand-made class: a file planted under a classmate's name never costs them", "[grade][class][cli]") {
    auto vic = the_class().at("vic");  // vic.toml right; "VIC .toml", broken, planted by someone else
    CHECK(vic["percent"] == "100.0");
    CHECK(vic["status"] == "graded");
    CHECK_THAT(vic["notes"], Catch::Contains("2 files for this student: 'VIC .toml' (not counted, not gradable: syntax), "
                                             "'vic.toml' (counted, 18/18)"));
}

TEST_CASE("the hand-made class: ticking every choice earns nothing and names nothing", "[grade][class][cli]") {
    auto sally = the_class().at("sally");
    CHECK(sally["09-nonlinear"] == "0");
    CHECK(std::stod(sally["total"]) == Approx(sum_of(numeric_points) + sum_of(other_points) - 1));
    int code = -1;
    const std::string report = run_command(shell_quote(ATTN_BIN) + " grade " + shell_quote(fixtures + "class-cheaters/sally.toml") +
                                               " --exercises 09-nonlinear --feedback mistakes --format json 2>&1", &code);
    CHECK_THAT(report, Catch::Contains("every choice is picked: no credit, and no choice is named right or wrong"));
    CHECK_THAT(report, !Catch::Contains("not it"));  // no choice named as wrong
}

TEST_CASE("the hand-made class: rounding to 2 decimals costs only the entries it moves, and names no mistake", "[grade][class][cli]") {
    auto rory = the_class().at("rory");
    CHECK(rory["mistakes"].empty());
    CHECK(std::stod(rory["total"]) > 0.5 * (sum_of(numeric_points) + sum_of(other_points)));
    CHECK(std::stod(rory["total"]) < sum_of(numeric_points) + sum_of(other_points));
}

TEST_CASE("the hand-made class: -1e9 for minus infinity is accepted where lesson 03 teaches it", "[grade][class][cli]") {
    auto ines = the_class().at("ines");
    CHECK(ines["percent"] == "100.0");
    CHECK(ines["mistakes"].empty());
}

TEST_CASE("the hand-made class: malformed files are not gradable, at 0, with reason and place", "[grade][class][cli]") {
    using row_t = std::pair<std::string, std::string>;
    auto [student, reason] = GENERATE(values<row_t>({
        {"omar", "syntax: omar.toml:4:17: TOML syntax"},
        {"paula", "empty: paula.toml: the file is empty"},
        {"quinn", "syntax: quinn.json: this looks like TOML, not JSON"},
        {"rita", "duplicate: rita.toml:5:19: exercise '03-why-causal' is answered twice in this file (also at rita.toml:2:19)"},
        {"sam", "not-utf8: sam.toml:2:23"},
    }));
    INFO(student);
    auto row = the_class().at(student);
    CHECK(row["status"] == "not gradable");
    CHECK(row["total"] == "0");
    CHECK_THAT(row["reason"], Catch::StartsWith(reason));
}

TEST_CASE("open answers: the review sheet goes out, the teacher's points come back into the gradebook", "[grade][class][cli]") {
    const fs::path dir = fs::temp_directory_path() / ("attn-grade-reviews-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "class");
    std::ofstream(dir / "class/ana.toml") << "\"09-data-dependent\" = \"A is computed from X, so the mixing changes with the input\"\n";
    std::ofstream(dir / "class/ben.toml") << "\"09-data-dependent\" = \"=SUM(A1:A9) it is linear\"\n";
    const std::string sheet = (dir / "sheet.csv").string();
    const gradebook before = grade_class((dir / "class").string(), "09-data-dependent", "--review-sheet " + shell_quote(sheet));
    CHECK(before.at("ana").at("total") == "0");  // 0 until reviewed
    const std::string exported = read_file(sheet);
    CHECK_THAT(exported, Catch::StartsWith("student,exercise,part,max,points,comment,answer,rubric\n"));
    CHECK_THAT(exported, Catch::Contains("ben,09-data-dependent,answer,1,,,'=SUM(A1:A9) it is linear,"));  // spreadsheet-safe
    // The teacher fills in the points column (ana 1, ben 0.5) and hands the sheet back.
    std::string filled = exported;
    filled.replace(filled.find("ana,09-data-dependent,answer,1,,"), 32, "ana,09-data-dependent,answer,1,1,");
    filled.replace(filled.find("ben,09-data-dependent,answer,1,,"), 32, "ben,09-data-dependent,answer,1,0.5,");
    std::ofstream(dir / "filled.csv") << filled;
    const gradebook after = grade_class((dir / "class").string(), "09-data-dependent", "--reviews " + shell_quote((dir / "filled.csv").string()));
    CHECK(after.at("ana").at("total") == "1");
    CHECK(after.at("ben").at("total") == "0.5");
    // A sheet the teacher must fix stops the run (exit 2) with its place.
    std::ofstream(dir / "bad.csv") << "student,exercise,part,max,points\nana,09-data-dependent,answer,1,5\n";
    int code = -1;
    const std::string out = run_command(shell_quote(ATTN_BIN) + " grade --reviews " + shell_quote((dir / "bad.csv").string()) +
                                            " --no-variants " + shell_quote((dir / "class/ana.toml").string()) + " 2>&1",
                                        &code);
    CHECK(code == 2);
    CHECK_THAT(out, Catch::Contains("bad.csv:2:32: points must be a number from 0 to 1"));
    fs::remove_all(dir);
}

TEST_CASE("the review sheet's max is the assignment's points for the part, and --reviews checks against it", "[grade][class][cli]") {
    const fs::path dir = fs::temp_directory_path() / ("attn-grade-review-max-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "class");
    std::ofstream(dir / "class/ana.toml") << "\"09-data-dependent\" = \"A is computed from X, so the mixing changes with the input\"\n";
    std::ofstream(dir / "class/ben.toml") << "\"09-data-dependent\" = \"it is linear\"\n";
    std::ofstream(dir / "a.toml") << "[[exercise]]\nid = \"09-data-dependent\"\npoints = 4\n";  // the lesson gives 1
    const std::string base = shell_quote(ATTN_BIN) + " grade --class " + shell_quote((dir / "class").string()) +
                             " --secret-file " + shell_quote(fixtures + "course.secret") + " --assignment " +
                             shell_quote((dir / "a.toml").string());
    int code = -1;
    run_command(base + " --review-sheet " + shell_quote((dir / "sheet.csv").string()) + " --gradebook " +
                    shell_quote((dir / "book.csv").string()) + " >/dev/null 2>&1",  // never the default ./gradebook.csv
                &code);
    REQUIRE(code == 0);
    std::string filled = read_file((dir / "sheet.csv").string());
    REQUIRE_THAT(filled, Catch::Contains("ana,09-data-dependent,answer,4,,"));  // out of the assignment's 4, not the lesson's 1
    filled.replace(filled.find("ana,09-data-dependent,answer,4,,"), 32, "ana,09-data-dependent,answer,4,3,");
    filled.replace(filled.find("ben,09-data-dependent,answer,4,,"), 32, "ben,09-data-dependent,answer,4,4,");
    std::ofstream(dir / "filled.csv") << filled;
    const std::string book = run_command(base + " --reviews " + shell_quote((dir / "filled.csv").string()) + " --gradebook - 2>/dev/null", &code);
    REQUIRE(code == 0);
    const auto rows = csv_rows(book);
    std::map<std::string, std::string> total;
    for (std::size_t r = 1; r < rows.size(); ++r)
        for (std::size_t c = 0; c < rows[0].size() && c < rows[r].size(); ++c)
            if (rows[0][c] == "total") total[rows[r][0]] = rows[r][c];
    CHECK(total["ana"] == "3");
    CHECK(total["ben"] == "4");
    // Beyond the assignment's points is out of range, with its place.
    std::ofstream(dir / "bad.csv") << "student,exercise,part,max,points\nana,09-data-dependent,answer,4,5\n";
    const std::string out = run_command(base + " --reviews " + shell_quote((dir / "bad.csv").string()) + " --gradebook - 2>&1", &code);
    CHECK(code == 2);
    CHECK_THAT(out, Catch::Contains("bad.csv:2:32: points must be a number from 0 to 4"));
    fs::remove_all(dir);
}
