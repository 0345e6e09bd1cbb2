// tests/cli_safety_test.cpp — issue 10's "Why" list against the real `attn` binary:
// each bad input that once lost data, crashed, hung or leaked control characters now
// exits 2 with a located message, writes nothing, replaces nothing, and is not killed
// by a signal. Every test works in its own scratch folder.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "support/golden.hpp"
#include "support/grade_fixtures.hpp"
#include "support/scratch.hpp"

using namespace attn::testing;
namespace fs = std::filesystem;

namespace {

struct timed_result {
    int code;         // -1 when a signal ended the process
    std::string out;  // stdout and stderr together
};

// `timeout` so a regression that blocks (a FIFO) fails instead of hanging the suite.
timed_result run_attn_timed(const std::string& args, const std::string& env = "ATTN_COURSE_SECRET=attn-fixture-secret") {
    int code = -1;
    std::string out = run_command(env + " timeout 20 " + shell_quote(ATTN_BIN) + " " + args + " 2>&1", &code);
    return {code, out};
}

std::string q(const fs::path& p) { return shell_quote(p.string()); }

std::string npy(const std::string& descr, const std::string& shape, const std::string& data) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string out = "\x93NUMPY\x01";
    out += '\0';
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    return out + header + data;
}

std::string f64(std::size_t n, double value) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out.append(reinterpret_cast<const char*>(&value), 8);
    return out;
}

std::string deep_toml(int levels) {
    std::string s = "[a";
    for (int i = 1; i < levels; ++i) s += ".a";
    return s + "]\nx = 1\n";
}

const std::string small_spec = "kind = \"self\"\ntokens = [\"a\", \"b\"]\nQ = [[1.0, 0.0], [0.0, 1.0]]\n"
                               "K = [[1.0, 0.0], [0.0, 1.0]]\nV = [[1.0, 2.0], [3.0, 4.0]]\n";

bool no_temporaries(const fs::path& dir) {
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().find("attn-tmp") != std::string::npos) return false;
    return true;
}

}  // namespace

TEST_CASE("an output that is one of the run's inputs is refused and the input survives", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-inputs");
    write_file(d / "s.toml", "kind = \"self\"\nQ = \"q.csv\"\nK = \"k.npy\"\nV = \"k.npy\"\n");
    write_file(d / "q.csv", "1,0\n0,1\n");
    write_file(d / "k.npy", npy("<f8", "(2, 2)", f64(4, 0.5)));
    const std::string spec = read_file(d / "s.toml"), csv = read_file(d / "q.csv"), npy_bytes = read_file(d / "k.npy");
    for (const std::string& args : {"--json " + q(d / "s.toml"), "--html " + q(d / "q.csv"), "--json " + q(d / "k.npy"),
                                    "--json " + q(d / "." / "s.toml")}) {
        const auto r = run_attn_timed("trace " + q(d / "s.toml") + " " + args);
        INFO(r.out);
        CHECK(r.code == 2);
        CHECK(r.out.find("one of this run's inputs") != std::string::npos);
    }
    CHECK(read_file(d / "s.toml") == spec);
    CHECK(read_file(d / "q.csv") == csv);
    CHECK(read_file(d / "k.npy") == npy_bytes);
    CHECK(no_temporaries(d));
}

TEST_CASE("grade never writes a report over a submission", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-grade-inputs");
    fs::copy_file(fixture_file("correct.toml"), d / "alice.toml");
    fs::create_directories(d / "cls");
    fs::copy_file(fixture_file("correct.toml"), d / "cls" / "bob.toml");
    const std::string before = read_file(d / "alice.toml");
    auto r = run_attn_timed("grade --no-variants " + q(d / "alice.toml") + " --junit " + q(d / "alice.toml"));
    CHECK(r.code == 2);
    CHECK(r.out.find("one of this run's inputs") != std::string::npos);
    r = run_attn_timed("grade --no-variants --class " + q(d / "cls") + " --gradebook " + q(d / "cls" / "bob.toml"));
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("one of this run's inputs") != std::string::npos);
    CHECK(read_file(d / "alice.toml") == before);
    CHECK(read_file(d / "cls" / "bob.toml") == before);
}

TEST_CASE("devices, FIFOs and symbolic links are never replaced by an output", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-special-out");
    write_file(d / "s.toml", small_spec);
    REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
    fs::create_symlink(d / "elsewhere.csv", d / "link.csv");
    for (const std::string& target : {std::string("/dev/null"), (d / "fifo").string(), (d / "link.csv").string()}) {
        const auto r = run_attn_timed("grade --no-variants --class " + shell_quote(fixture_file("class")) + " --gradebook " + shell_quote(target));
        INFO(r.out);
        CHECK(r.code == 2);
        CHECK(r.out.find("attn only replaces regular files") != std::string::npos);
        const auto t = run_attn_timed("trace " + q(d / "s.toml") + " --json " + shell_quote(target));
        CHECK(t.code == 2);
    }
    struct stat st {};
    REQUIRE(::lstat((d / "fifo").c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    CHECK(fs::is_symlink(fs::symlink_status(d / "link.csv")));
    CHECK_FALSE(fs::exists(d / "elsewhere.csv"));
    // Standard output is asked for with "-".
    const auto r = run_attn_timed("trace " + q(d / "s.toml") + " --json -");
    CHECK(r.code == 0);
    CHECK(r.out.find("\"stages\"") != std::string::npos);
}

TEST_CASE("exercise template -o keeps a filled-in answer file unless --force", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-template");
    write_file(d / "answers.toml", "# my answers\n");
    auto r = run_attn_timed("exercise template 04-cross-the -o " + q(d / "answers.toml"));
    CHECK(r.code == 2);
    CHECK(r.out.find("the file exists (pass --force to replace it)") != std::string::npos);
    CHECK(read_file(d / "answers.toml") == "# my answers\n");
    r = run_attn_timed("exercise template 04-cross-the -o " + q(d / "answers.toml") + " --force");
    CHECK(r.code == 0);
    CHECK(read_file(d / "answers.toml").find("[04-cross-the]") != std::string::npos);
}

TEST_CASE("a 30000-level TOML file is refused with its place in every verb", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-deep");
    write_file(d / "deep.toml", deep_toml(30000));
    for (const char* verb : {"trace", "lesson check", "grade --no-variants"}) {
        const auto r = run_attn_timed(std::string(verb) + " " + q(d / "deep.toml"));
        INFO(verb << ": " << r.out);
        CHECK(r.code == 2);  // not -1: no SIGSEGV
        CHECK(r.out.find("deep.toml:1:129: TOML nested deeper than 64 levels") != std::string::npos);
    }
}

TEST_CASE("one malicious file in a class folder still yields every other grade and the gradebook", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-class");
    fs::copy(fixture_file("class"), d / "cls", fs::copy_options::recursive);
    write_file(d / "cls" / "mallory.toml", deep_toml(30000));
    const auto r = run_attn_timed("grade --no-variants --class " + q(d / "cls") + " --gradebook " + q(d / "book.csv"));
    INFO(r.out);
    CHECK(r.code == 0);
    const std::string book = read_file(d / "book.csv");
    CHECK(book.find("mallory") != std::string::npos);
    CHECK(book.find("too-deep") != std::string::npos);
    for (const char* who : {"alice", "carol", "dave", "frank", "heidi"}) CHECK(book.find(who) != std::string::npos);

    // Gradescope: results.json is written whatever the submission holds.
    fs::create_directories(d / "sub");
    write_file(d / "sub" / "answers.toml", deep_toml(30000));
    const auto g = run_attn_timed("grade --gradescope --no-variants --student mallory --submission " + q(d / "sub") + " --results " +
                        q(d / "results" / "results.json") + " --metadata " + q(d / "none.json"));
    INFO(g.out);
    CHECK(g.code != -1);
    CHECK(read_file(d / "results" / "results.json").find("nested deeper than 64 levels") != std::string::npos);
}

TEST_CASE("hostile npy headers exit 2 naming the file, without allocating", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-npy");
    auto [shape, data, expected] = GENERATE(table<std::string, std::string, std::string>({
        {"(9223372036854775808, 2, 1)", "", "more than the budget"},
        {"(2, 9223372036854775808)", "", "more than 2^64"},
        {"(-2, 2)", std::string(32, '\0'), "negative length"},
        {"(abc, 2)", std::string(32, '\0'), "non-negative integer"},
        {"(0, 4)", "", "axis 0 has length 0"},
        {"(2, 2)", std::string(8, '\0'), "the file holds 8"},
    }));
    write_file(d / "V.npy", npy("<f8", shape, data));
    write_file(d / "s.toml", "kind = \"self\"\nQ = [[1.0, 0.0], [0.0, 1.0]]\nK = [[1.0, 0.0], [0.0, 1.0]]\nV = \"V.npy\"\n");
    const auto r = run_attn_timed("trace " + q(d / "s.toml"));
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("s.toml:4:5: 'V' = \"V.npy\": ") != std::string::npos);
    CHECK(r.out.find(expected) != std::string::npos);
}

TEST_CASE("a v2 npy header claiming 4 GB is refused at once", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-npy2");
    write_file(d / "V.npy", std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff", 12));
    write_file(d / "s.toml", "kind = \"self\"\nQ = [[1.0]]\nK = [[1.0]]\nV = \"V.npy\"\n");
    const auto r = run_attn_timed("trace " + q(d / "s.toml"));
    CHECK(r.code == 2);
    CHECK(r.out.find("the .npy header claims 4294967295 bytes, but the file has 0") != std::string::npos);
}

TEST_CASE("a bool mask with bytes other than 0 and 1 is refused", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-bool");
    write_file(d / "m.npy", npy("|b1", "(2, 2)", std::string("\x01\x02\x00\x01", 4)));
    write_file(d / "s.toml", small_spec + "[mask]\nattend = \"m.npy\"\n");
    const auto r = run_attn_timed("trace " + q(d / "s.toml"));
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("bool element [0, 1] is the byte 2") != std::string::npos);
}

TEST_CASE("FIFOs, devices and directories as inputs fail at once", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-special-in");
    REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
    auto [args, expected] = GENERATE_COPY(table<std::string, std::string>({
        {"trace " + q(d / "fifo"), "it is a FIFO (named pipe); attn reads regular files only"},
        {"lesson check " + q(d / "fifo"), "it is a FIFO (named pipe)"},
        {"lesson check /dev/zero", "it is a character device"},
        {"trace " + q(d), "it is a directory"},
        {"grade --no-variants " + q(d / "fifo"), "not a regular file"},
    }));
    const auto r = run_attn_timed(args);
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find(expected) != std::string::npos);
}

TEST_CASE("grade reads standard input only up to the size limit", "[cli][safety]") {
    int code = -1;
    const std::string out = run_command("head -c 100000000 /dev/zero | ATTN_COURSE_SECRET=x timeout 20 " + shell_quote(ATTN_BIN) +
                                            " grade --no-variants - --max-bytes 4096 2>&1",
                                        &code);
    CHECK(code == 2);
    CHECK(out.find("<stdin>: the file has more than 4096 bytes") != std::string::npos);
}

TEST_CASE("a trace past the element budget is refused before allocating", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-budget");
    write_file(d / "X.npy", npy("<f8", "(30000, 2)", f64(60000, 0.25)));
    write_file(d / "s.toml", "kind = \"self\"\nQ = \"X.npy\"\nK = \"X.npy\"\nV = \"X.npy\"\n");
    auto r = run_attn_timed("trace " + q(d / "s.toml"));
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("s.toml:1:1: the trace's score stages") != std::string::npos);
    CHECK(r.out.find("more than the budget of 268435456") != std::string::npos);
    r = run_attn_timed("trace " + q(d / "s.toml") + " --max-elements 1000");
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("s.toml:2:5: 'Q' = \"X.npy\": ") != std::string::npos);
    CHECK(r.out.find("X.npy: the array [30000 × 2] would hold 60000 numbers, more than the budget of 1000") != std::string::npos);
    // Each input within the budget, not all three together: refused from the headers, before reading.
    r = run_attn_timed("trace " + q(d / "s.toml") + " --max-elements 100000");
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("s.toml:1:1: the .npy inputs together (Q X.npy 60000, K X.npy 60000, V X.npy 60000) would hold "
                     "more numbers than the budget of 100000 (raise it with --max-elements") != std::string::npos);
}

TEST_CASE("an HTML report past its cell limit is refused with a hint and nothing written", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-html");
    write_file(d / "X.npy", npy("<f8", "(600, 2)", f64(1200, 0.25)));
    write_file(d / "s.toml", "kind = \"self\"\nQ = \"X.npy\"\nK = \"X.npy\"\nV = \"X.npy\"\n");
    const auto r = run_attn_timed("trace " + q(d / "s.toml") + " --html " + q(d / "r.html"));
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("--html: the report would show 360000 query·key cells") != std::string::npos);
    CHECK(r.out.find("--stage and --query") != std::string::npos);
    CHECK_FALSE(fs::exists(d / "r.html"));
}

TEST_CASE("scores that overflow from finite inputs are an error naming the query and key", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-overflow");
    write_file(d / "big.toml", "kind = \"self\"\ntokens = [\"x\", \"y\"]\nQ = [[1e308, 1e308], [1.0, 0.0]]\n"
                          "K = [[1e308, 1e308], [0.0, 1.0]]\nV = [[1.0, 2.0], [3.0, 4.0]]\n");
    write_file(d / "scale.toml", "kind = \"self\"\ntokens = [\"a\", \"b\"]\nscale = 1e-308\nQ = [[10.0, 0.0], [0.0, 1.0]]\n"
                            "K = [[10.0, 0.0], [0.0, 1.0]]\nV = [[1.0, 2.0], [3.0, 4.0]]\n");
    auto r = run_attn_timed("trace " + q(d / "big.toml") + " --json " + q(d / "out.json"));
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("big.toml:1:1: hook_attn_scores_raw is +infinity") != std::string::npos);
    CHECK(r.out.find("is +infinity at query 'x' (row 0), key 'x' (column 0)") != std::string::npos);
    CHECK(r.out.find("blocked") == std::string::npos);
    CHECK_FALSE(fs::exists(d / "out.json"));
    r = run_attn_timed("trace " + q(d / "scale.toml"));
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("hook_attn_scores_scaled") != std::string::npos);
    CHECK(r.out.find("query 'a' (row 0), key 'a' (column 0)") != std::string::npos);
}

TEST_CASE("CSV inputs take a BOM and subnormals and refuse a NUL with its place", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-csv");
    write_file(d / "q.csv", "\xEF\xBB\xBF" "1e-310,1\n1e-320,0\n");
    write_file(d / "s.toml", "kind = \"self\"\nQ = \"q.csv\"\nK = \"q.csv\"\nV = \"q.csv\"\n");
    CHECK(run_attn_timed("trace " + q(d / "s.toml")).code == 0);
    write_file(d / "q.csv", std::string("1,0\n0,\0" "1\n", 8));
    const auto r = run_attn_timed("trace " + q(d / "s.toml"));
    CHECK(r.code == 2);
    CHECK(r.out.find("q.csv:2:3: a NUL byte") != std::string::npos);
}

TEST_CASE("control characters from files reach the terminal only as visible escapes", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-terminal");
    write_file(d / "s.toml", "kind = \"self\"\ntitle = \"T\\u001b]0;pwned\\u0007\"\ntokens = [\"\\u001b[2J\", \"b\\nTotal 9 / 9\"]\n"
                        "Q = [[1.0, 0.0], [0.0, 1.0]]\nK = [[1.0, 0.0], [0.0, 1.0]]\nV = [[1.0, 2.0], [3.0, 4.0]]\n");
    for (const char* extra : {"", " --query 0", " --heatmap weights"}) {
        const auto r = run_attn_timed("trace " + q(d / "s.toml") + std::string(extra) + " --color never");
        INFO(r.out);
        CHECK(r.code == 0);
        CHECK(r.out.find('\x1b') == std::string::npos);
        CHECK(r.out.find('\x07') == std::string::npos);
        CHECK(r.out.find("\\x1b[2J") != std::string::npos);
        CHECK(r.out.find("\nTotal 9 / 9") == std::string::npos);
    }
    // A student id with a newline cannot fake a total line; a class file name with ESC is shown escaped.
    write_file(d / "alice.toml", "student = \"eve\\nTotal 9 / 9\\u001b[2J\"\n" + read_file(fixture_file("correct.toml")).substr(read_file(fixture_file("correct.toml")).find('[')));
    auto r = run_attn_timed("grade --no-variants " + q(d / "alice.toml"));
    INFO(r.out);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find("\nTotal 9 / 9") == std::string::npos);
    fs::create_directories(d / "cls");
    write_file(d / "cls" / "\x1b]52;c;aGk=\x07.toml", "broken = [");
    fs::copy_file(d / "alice.toml", d / "cls" / "alice.toml");
    r = run_attn_timed("grade --no-variants --class " + q(d / "cls") + " --gradebook -");
    INFO(r.out);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find('\x07') == std::string::npos);
    // A lesson file's title and text.
    fs::create_directories(d / "lessons");
    write_file(d / "lessons" / "01-evil.toml", "number = 1\ntitle = \"Evil \\u001b[2J\"\n");
    r = run_attn_timed("lessons", "ATTN_LESSONS_DIR=" + q(d / "lessons"));
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find("Evil \\x1b[2J") != std::string::npos);
}

TEST_CASE("gradebook cells starting with TAB or CR are neutralised", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-gradebook");
    fs::create_directories(d / "cls");
    const std::string answers = read_file(fixture_file("correct.toml")).substr(read_file(fixture_file("correct.toml")).find('['));
    write_file(d / "cls" / "a.toml", "student = \"\\t=1+1\"\n" + answers);
    write_file(d / "cls" / "b.toml", "student = \"\\r=1+1\"\n" + answers);
    const auto r = run_attn_timed("grade --no-variants --class " + q(d / "cls") + " --gradebook " + q(d / "book.csv"));
    INFO(r.out);
    const std::string book = read_file(d / "book.csv");
    INFO(book);
    CHECK(book.find("\n\t") == std::string::npos);
    CHECK(book.find("\n\r") == std::string::npos);
    CHECK(book.find("\n=") == std::string::npos);
}

TEST_CASE("a full disk on standard output exits 2 with a message", "[cli][safety]") {
    int code = -1;
    std::string err = run_command(shell_quote(ATTN_BIN) + " lesson 4 --no-pause 2>&1 >/dev/full", &code);
    CHECK(code == 2);
    CHECK(err.find("attn: cannot write to standard output") != std::string::npos);
    err = run_command("ATTN_COURSE_SECRET=x " + shell_quote(ATTN_BIN) + " grade --no-variants --class " +
                          shell_quote(fixture_file("class")) + " --gradebook - 2>&1 >/dev/full",
                      &code);
    CHECK(code == 2);
    CHECK(err.find("cannot write to standard output") != std::string::npos);
}

TEST_CASE("an export directory keeps no stale files from an earlier run", "[cli][safety]") {
    const fs::path d = fresh_scratch_dir("attn-safety-export");
    const std::string multi = std::string(ATTN_SOURCE_DIR) + "/examples/trace/multihead-batch.toml";
    write_file(d / "s.toml", small_spec);
    REQUIRE(run_attn_timed("trace " + shell_quote(multi) + " --csv " + q(d / "out")).code == 0);
    CHECK(fs::exists(d / "out" / "hook_pattern.b1.h1.csv"));
    REQUIRE(run_attn_timed("trace " + q(d / "s.toml") + " --csv " + q(d / "out")).code == 0);
    CHECK_FALSE(fs::exists(d / "out" / "hook_pattern.b1.h1.csv"));
    CHECK(fs::exists(d / "out" / "hook_pattern.b0.h0.csv"));
    // A folder attn did not make is refused, whole.
    fs::create_directories(d / "mine");
    write_file(d / "mine" / "thesis.tex", "years of work");
    const auto r = run_attn_timed("trace " + q(d / "s.toml") + " --npy " + q(d / "mine"));
    CHECK(r.code == 2);
    CHECK(r.out.find("not empty") != std::string::npos);
    CHECK(read_file(d / "mine" / "thesis.tex") == "years of work");
    CHECK(no_temporaries(d));
}
