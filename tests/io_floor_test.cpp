// tests/io_floor_test.cpp — the io floor in-process: the terminal sanitiser, the TOML
// depth scanner, the .npy and CSV readers on hostile bytes, the input reader on
// special files, the output writer's refusals and manifest, and the temp-file cleanup
// on SIGINT (in a forked child).
#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/csv_read.hpp"
#include "io/input_read.hpp"
#include "io/input_registry.hpp"
#include "io/npy_read.hpp"
#include "io/utf8.hpp"
#include "io/output_writer.hpp"
#include "io/size_budget.hpp"
#include "io/temp_registry.hpp"
#include "io/terminal_safe.hpp"
#include "io/toml_depth.hpp"
#include "support/golden.hpp"
#include "support/scratch.hpp"
#include "support/text_checks.hpp"

using namespace attn::io;
namespace fs = std::filesystem;
using attn::testing::error_of;
using attn::testing::fresh_scratch_dir;
using attn::testing::read_file;

namespace {

// A .npy file's bytes: version 1 prefix, the header padded to 64, then `data`.
std::string npy_bytes(const std::string& dict, const std::string& data) {
    std::string header = dict;
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    return out + header + data;
}

std::string doubles(std::initializer_list<double> v) {
    std::string out;
    for (double x : v) out.append(reinterpret_cast<const char*>(&x), sizeof x);
    return out;
}

}  // namespace

TEST_CASE("terminal_safe shows control characters as visible escapes", "[io][safety]") {
    auto [raw, shown] = GENERATE(table<std::string, std::string>({
        {"cat", "cat"},
        {"\x1b[2J", "\\x1b[2J"},
        {"\x1b]52;c;aGVsbG8=\x07", "\\x1b]52;c;aGVsbG8=\\x07"},
        {"a\nTotal 9 / 9", "a\\x0aTotal 9 / 9"},
        {"tab\there", "tab\\x09here"},
        {"cr\r", "cr\\x0d"},
        {"del\x7f", "del\\x7f"},
        {"csi \xc2\x9b" "2J", "csi \\u009b2J"},
        {"lone \x9b byte", "lone \\x9b byte"},
        {"bidi \xe2\x80\xae", "bidi \\u202e"},
        {"고양이 café", "고양이 café"},
        {std::string("nul\0x", 5), "nul\\x00x"},
    }));
    CHECK(terminal_safe(raw) == shown);
    CHECK(terminal_safe(terminal_safe(raw)) == shown);  // escaping is idempotent
}

TEST_CASE("terminal_safe_text keeps line breaks and tabs of prose only", "[io][safety]") {
    CHECK(terminal_safe_text("line 1\n\tline 2\x1b[31m") == "line 1\n\tline 2\\x1b[31m");
}

TEST_CASE("xml_safe escapes markup and blanks the control characters XML 1.0 forbids", "[io][safety]") {
    CHECK(xml_safe("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
    CHECK(xml_safe(std::string("x\x01\x1b\x00y", 5)) == "x   y");
    CHECK(xml_safe("tab\tline\ncr\r") == "tab\tline\ncr\r");
    CHECK(xml_safe("고양이") == "고양이");
}

TEST_CASE("spreadsheet_safe neutralises formula starts including tab and CR", "[io][safety]") {
    auto [cell, safe] = GENERATE(table<std::string, std::string>({
        {"=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"},
        {"+1", "'+1"},
        {"-1", "'-1"},
        {"@SUM(A1)", "'@SUM(A1)"},
        {"\t=1", "'\t=1"},
        {"\r=1", "'\r=1"},
        {"alice", "alice"},
        {"", ""},
    }));
    CHECK(spreadsheet_safe(cell) == safe);
}

TEST_CASE("UTF-8 validation refuses overlong forms, surrogates and cut sequences", "[io]") {
    CHECK(valid_utf8("plain ascii"));
    CHECK(valid_utf8("\xea\xb3\xa0\xec\x96\x91\xec\x9d\xb4 \xc3\x97"));  // 고양이 ×
    std::size_t at = 99;
    CHECK_FALSE(valid_utf8("ab\xc0\xaf", &at));  // overlong '/'
    CHECK(at == 2);
    CHECK_FALSE(valid_utf8("\xed\xa0\x80"));      // a UTF-16 surrogate
    CHECK_FALSE(valid_utf8("\xe2\x82"));          // cut short
    CHECK_FALSE(valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
}

TEST_CASE("the TOML depth scanner refuses deep documents and passes normal ones", "[io][safety]") {
    const std::string deep_header = "[" + [] {
        std::string s = "a";
        for (int i = 0; i < 30000; ++i) s += ".a";
        return s;
    }() + "]\n";
    const std::string deep_array = "x = " + std::string(100, '[') + std::string(100, ']') + "\n";
    const std::string deep_inline = "x = " + [] {
        std::string s;
        for (int i = 0; i < 70; ++i) s += "{a = ";
        s += "1";
        for (int i = 0; i < 70; ++i) s += "}";
        return s;
    }() + "\n";
    std::string dotted_key = "a";
    for (int i = 0; i < 70; ++i) dotted_key += ".b";
    dotted_key += " = 1\n";
    auto [text, line_col] = GENERATE_COPY(table<std::string, std::string>({
        {deep_header, ":1:129:"},
        {deep_array, ":1:68:"},  // key x is level 1: the 64th bracket is level 65
        {deep_inline, ":1:320:"},
        {dotted_key, ":1:128:"},
        {"[a]\nx = 1\n" + deep_array, ":3:67:"},  // one level more from [a]
    }));
    const std::string e = error_of([t = text] { check_toml_nesting(t, "deep.toml"); });
    INFO(e);
    CHECK(e.find("deep.toml" + line_col) == 0);
    CHECK(e.find("nested deeper than 64 levels") != std::string::npos);

    // Brackets and dots inside strings and comments are not structure; 64 levels pass
    // ([a.b.c] 3 + key 1 + 60 arrays).
    const std::string ok = std::string("[a.b.c]\ns = \"[[[[{{{{a.b.c.d\"\nt = '''\n[[[[[[\n'''\n# [[[[[[[[\n") +
                           "f = [1.5, 2.5, 3.5, 4.5]\n" + "x = " + std::string(60, '[') + std::string(60, ']') + "\n";
    CHECK_NOTHROW(check_toml_nesting(ok, "ok.toml"));
}

TEST_CASE("the npy reader refuses hostile headers before allocating", "[io][safety]") {
    const std::string good_data = doubles({1, 2, 3, 4});
    auto [bytes, expected] = GENERATE_COPY(table<std::string, std::string>({
        {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (9223372036854775808, 2, 1), }", ""), "more than the budget"},
        {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 9223372036854775808), }", ""), "more than 2^64"},
        {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999, 2), }", ""), "longer than 2^64"},
        {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (-2, 2), }", good_data), "negative length on axis 0"},
        {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (abc, 2), }", good_data), "a non-negative integer in 'shape'"},
        {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", ""), "axis 0 has length 0"},
        {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", doubles({1})), "rank 1 to 3, found rank 0"},
        {npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", good_data), "Fortran order"},
        {npy_bytes("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 2), }", good_data), "found '>f8'"},
        {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", good_data.substr(0, 24)), "the file holds 24"},
        {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", good_data + "x"), "the file holds 33"},
        {npy_bytes("{'descr': '<f8', 'shape': (2, 2), }", good_data), "'descr', 'fortran_order' and 'shape'"},
        {npy_bytes("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", good_data), "each once"},
        {std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff", 12), "the .npy header claims 4294967295 bytes"},
        {std::string("\x93NUMPY\x01\x00\x40", 9), "not a .npy file"},
        {std::string("PK\x03\x04 not numpy at all"), "not a .npy file"},
    }));
    const std::string e = error_of([b = bytes] { (void)parse_npy(b, "x.npy"); });
    INFO(e);
    CHECK(e.find("x.npy: ") == 0);
    CHECK(e.find(expected) != std::string::npos);
}

TEST_CASE("the npy reader reads valid files with long headers, float32 and bools", "[io]") {
    // A header numpy pads to 246 bytes (xnpy.hpp refused it with UB).
    std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }";
    dict += std::string(246 - 10 - dict.size() - 1, ' ');
    const nd_array a = parse_npy(npy_bytes(dict, doubles({1, 2, 3, 4})), "long.npy");
    CHECK(a.shape == std::vector<std::size_t>{2, 2});
    CHECK(a.data == std::vector<double>{1, 2, 3, 4});

    float f[3] = {0.5f, -1.25f, 3.0f};
    const nd_array b = parse_npy(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                                           std::string(reinterpret_cast<const char*>(f), sizeof f)),
                                 "f.npy");
    CHECK(b.data == std::vector<double>{0.5, -1.25, 3.0});

    const std::string mask = npy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }", std::string("\x01\x00\x00\x01", 4));
    CHECK(parse_npy(mask, "m.npy", npy_options{true}).data == std::vector<double>{1, 0, 0, 1});
    for (char bad : {'\x02', '\xff'}) {
        const std::string e = error_of([&] {
            (void)parse_npy(npy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }", std::string("\x01\x00", 2) + bad + "\x01"),
                            "m.npy", npy_options{true});
        });
        CHECK(e.find("bool element [1, 0] is the byte") != std::string::npos);
    }
}

TEST_CASE("the CSV reader takes a BOM and subnormals and refuses NUL with its place", "[io][safety]") {
    CHECK(parse_csv("\xEF\xBB\xBF" "1,2\n3,4\n", "a.csv").data == std::vector<double>{1, 2, 3, 4});
    const nd_array tiny = parse_csv("1e-310, 1e-320\n", "t.csv");
    CHECK(tiny.data[0] == 1e-310);
    CHECK(tiny.data[1] == 1e-320);
    CHECK(error_of([] { (void)parse_csv(std::string("1,2\n3,\0" "4\n", 8), "n.csv"); }).find("n.csv:2:3: a NUL byte") == 0);
    CHECK(error_of([] { (void)parse_csv("1,1e400\n", "o.csv"); }).find("o.csv:1:3: the number '1e400' is beyond") == 0);
    CHECK(error_of([] { (void)parse_csv("1,nan\n", "o.csv"); }).find("o.csv:1:3: expected a finite number, found a non-finite value (not-a-number or infinity)") == 0);
    CHECK(error_of([] { (void)parse_csv("1,\x1b[2J\n", "e.csv"); }).find("found '\\x1b[2J'") != std::string::npos);
    // One 1.6 MB line: linear parsing (this took 13.7 s when each cell copied the rest of the line).
    std::string line;
    for (int i = 0; i < 200000; ++i) line += (i ? "," : "") + std::string("0.12345");
    CHECK(parse_csv(line + "\n", "wide.csv").shape == std::vector<std::size_t>{1, 200000});
}

TEST_CASE("the input reader refuses directories, FIFOs and devices without blocking", "[io][safety]") {
    const fs::path dir = fresh_scratch_dir("attn-io-special");
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    auto [path, kind] = GENERATE_COPY(table<std::string, std::string>({
        {dir.string(), "a directory"},
        {(dir / "fifo").string(), "a FIFO"},
        {"/dev/zero", "a character device"},
        {(dir / "missing.toml").string(), "no such file"},
    }));
    const std::string e = error_of([p = path] { (void)read_input_file(p); });
    CHECK(e.find(path + ": ") == 0);
    CHECK(e.find(kind) != std::string::npos);
}

TEST_CASE("the input reader stops at the size limit", "[io][safety]") {
    const fs::path dir = fresh_scratch_dir("attn-io-size");
    std::ofstream(dir / "big.txt") << std::string(5000, 'x');
    input_limits small;
    small.max_bytes = 4096;
    CHECK(error_of([&] { (void)read_input_file((dir / "big.txt").string(), small); }).find("more than the limit of 4096") !=
          std::string::npos);
    CHECK(read_input_file((dir / "big.txt").string()).size() == 5000);
}

TEST_CASE("the output writer refuses inputs, special files and symlinks", "[io][safety]") {
    const fs::path dir = fresh_scratch_dir("attn-io-writer");
    clear_inputs();
    std::ofstream(dir / "spec.toml") << "kind = \"self\"\n";
    (void)read_input_file((dir / "spec.toml").string());
    fs::create_hard_link(dir / "spec.toml", dir / "hard.toml");
    fs::create_symlink(dir / "other.txt", dir / "link.txt");
    const output_writer out;
    CHECK(error_of([&] { out.write_file((dir / "spec.toml").string(), "x"); }).find("one of this run's inputs") != std::string::npos);
    CHECK(error_of([&] { out.write_file((dir / "hard.toml").string(), "x"); }).find("one of this run's inputs") != std::string::npos);
    CHECK(error_of([&] { out.write_file((dir / "." / "spec.toml").string(), "x"); }).find("one of this run's inputs") != std::string::npos);
    CHECK(error_of([&] { out.write_file((dir / "link.txt").string(), "x"); }).find("a symbolic link") != std::string::npos);
    CHECK(error_of([&] { out.write_file("/dev/null", "x"); }).find("a character device") != std::string::npos);
    CHECK(read_file(dir / "spec.toml") == "kind = \"self\"\n");
    CHECK(fs::is_symlink(fs::symlink_status(dir / "link.txt")));
    CHECK_FALSE(fs::exists(dir / "other.txt"));

    out.write_file((dir / "report.txt").string(), "one");
    out.write_file((dir / "report.txt").string(), "two");  // a report is replaced
    CHECK(read_file(dir / "report.txt") == "two");
    CHECK(error_of([&] { out.write_file((dir / "report.txt").string(), "3", existing::keep); }).find("pass --force") !=
          std::string::npos);
    output_writer(true).write_file((dir / "report.txt").string(), "three", existing::keep);
    CHECK(read_file(dir / "report.txt") == "three");
    for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string().find("attn-tmp") == std::string::npos);
    clear_inputs();
}

namespace {
// One export into `dir` through the one directory writer: every (name → bytes).
void export_files(const fs::path& dir, const std::map<std::string, std::string>& files) {
    staged_directory d(dir.string());
    // Not a structured binding: C++17 lambdas can't capture one (clang refuses it).
    for (const auto& entry : files) {
        const std::string& bytes = entry.second;
        d.add(entry.first, [&bytes](staged_file& f) { f.write(bytes); });
    }
    d.commit();
}
}  // namespace

TEST_CASE("an export directory is owned through its manifest", "[io][safety]") {
    const fs::path dir = fresh_scratch_dir("attn-io-export");
    export_files(dir / "out", {{"a.csv", "1\n"}, {"b.csv", "2\n"}});
    const std::string m = read_file(dir / "out" / manifest_name);
    CHECK(m.find(" a.csv\n") != std::string::npos);
    CHECK(m.find("2 ") != std::string::npos);  // sizes recorded
    export_files(dir / "out", {{"a.csv", "3\n"}});  // b.csv is stale and still attn's: removed
    CHECK(read_file(dir / "out" / "a.csv") == "3\n");
    CHECK_FALSE(fs::exists(dir / "out" / "b.csv"));
    std::ofstream(dir / "out" / "mine.txt") << "not attn's";
    export_files(dir / "out", {{"a.csv", "4\n"}});  // a foreign file is left alone
    CHECK(read_file(dir / "out" / "mine.txt") == "not attn's");
    CHECK(error_of([&] { export_files(dir / "out", {{"mine.txt", "x"}}); }).find("attn did not write it") !=
          std::string::npos);
    fs::create_directories(dir / "full");
    std::ofstream(dir / "full" / "notes.txt") << "keep";
    CHECK(error_of([&] { export_files(dir / "full", {{"a.csv", "1\n"}}); }).find("not empty") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "full" / "a.csv"));
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir / "out")) entries += e.path().filename().string().find("attn-tmp") == std::string::npos;
    CHECK(entries == 3);  // a.csv, mine.txt, the manifest: no temporaries
}

TEST_CASE("an export removes or replaces only files its manifest vouches for", "[io][safety]") {
    const fs::path dir = fresh_scratch_dir("attn-io-vouch");
    // A stranger's manifest (names only, as an older attn or anyone could write) vouches for nothing.
    fs::create_directories(dir / "a");
    std::ofstream(dir / "a" / "notes.txt") << "my notes";
    std::ofstream(dir / "a" / manifest_name) << "# attn export manifest\nnotes.txt\n";
    CHECK(error_of([&] { export_files(dir / "a", {{"x.npy", "1"}}); }).find("not the file attn wrote") !=
          std::string::npos);  // notes.txt is not attn's: never deleted, and the export says why
    CHECK(read_file(dir / "a" / "notes.txt") == "my notes");
    CHECK_FALSE(fs::exists(dir / "a" / "x.npy"));  // refused before anything moved
    // A file attn wrote and the user changed since: neither removed nor replaced; refused.
    export_files(dir / "b", {{"x.npy", "1"}, {"y.npy", "2"}});
    std::ofstream(dir / "b" / "y.npy") << "edited";
    CHECK(error_of([&] { export_files(dir / "b", {{"x.npy", "3"}}); }).find("not the file attn wrote") !=
          std::string::npos);
    CHECK(read_file(dir / "b" / "y.npy") == "edited");
    CHECK(read_file(dir / "b" / "x.npy") == "1");  // refused before anything moved
    CHECK(error_of([&] { export_files(dir / "b", {{"y.npy", "3"}}); }).find("not the file attn wrote") !=
          std::string::npos);
    CHECK(read_file(dir / "b" / "y.npy") == "edited");
    // One of this run's inputs, listed by the manifest and not written again: kept.
    export_files(dir / "c", {{"in.npy", "1"}, {"z.npy", "2"}});
    register_input((dir / "c" / "in.npy").string());
    export_files(dir / "c", {{"z.npy", "3"}});
    CHECK(read_file(dir / "c" / "in.npy") == "1");
    CHECK(read_file(dir / "c" / manifest_name).find("in.npy") == std::string::npos);  // no longer attn's to remove
    clear_inputs();
}

TEST_CASE("temporary files are removed when SIGINT stops the process", "[io][safety]") {
    const fs::path dir = fresh_scratch_dir("attn-io-sigint");
    const fs::path tmp = dir / ".x.attn-tmp";
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        std::signal(SIGINT, SIG_DFL);  // Catch2's own handler is replaced, as in attn's process
        install_temp_cleanup_handlers();
        std::ofstream(tmp) << "half";
        track_temp(tmp.string());
        std::raise(SIGINT);
        _exit(0);  // not reached: the handler re-raises with the default action
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGINT);
    CHECK_FALSE(fs::exists(tmp));
}

TEST_CASE("the element budget is checked with overflow-safe products", "[io][safety]") {
    CHECK(checked_product({3, 4, 5}) == std::optional<std::size_t>(60));
    CHECK_FALSE(checked_product({std::size_t{1} << 40, std::size_t{1} << 40}));
    set_max_elements(default_max_elements);  // other tests (the fuzz replay) lower it
    CHECK_NOTHROW(check_trace_budget(1, 1, 8192, 8192, source_pos{"s.toml", 1, 1}));
    CHECK(error_of([] { check_trace_budget(1, 1, 30000, 30000, source_pos{"s.toml", 1, 1}); })
              .find("s.toml:1:1: the trace's score stages") == 0);
}
