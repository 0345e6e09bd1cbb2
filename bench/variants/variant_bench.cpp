// bench/variants/variant_bench.cpp — attn_variant_bench: the variant generator at class scale.
// For every exercise whose numbers vary per student, draws the numbers of N student ids
// (default 100,000) under one course secret, as `attn grade --class` would, and checks that
// each draw is distinguishable (no catalogued mistake that applies gives the right answer:
// the generator's own predicate, grade/variant_check) and that redraws stay the exception
// (under a quarter of the students). Prints one Markdown row per exercise (students, share
// redrawn, time) and the total; exit 1 when a check fails. The test suite runs the same
// check on 500 students (tests/grade_variant_check_test.cpp); the 100,000 live
// here because they take minutes (tools/bench --variants writes bench/results/variants.md).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/parallel_for.hpp"
#include "grade/exercise.hpp"
#include "grade/variant.hpp"

namespace {

struct options {
    std::size_t students = 100000;
    std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
    std::string lessons = ATTN_VARIANT_BENCH_LESSONS_DIR;
    std::string out;      // "" = standard output only
    std::string command;  // the command line, for the report
};

std::size_t count_arg(const char* flag, const char* text) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (!text[0] || *end || v == 0 || v > 100000000ULL) {
        std::cerr << "attn_variant_bench: " << flag << " expects a positive count, found '" << text << "'\n";
        std::exit(2);
    }
    return static_cast<std::size_t>(v);
}

options parse(int argc, char** argv) {
    options o;
    o.command = "attn_variant_bench";
    for (int i = 1; i < argc; ++i) o.command += std::string(" ") + argv[i];
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool valued = a == "--students" || a == "--threads" || a == "--lessons" || a == "--out";
        if (!valued) {
            std::cerr << "usage: attn_variant_bench [--students N] [--threads T] [--lessons DIR] [--out FILE.md]\n";
            std::exit(2);
        }
        if (i + 1 >= argc) {
            std::cerr << "attn_variant_bench: " << a << " needs a value\n";
            std::exit(2);
        }
        const char* v = argv[++i];
        if (a == "--students") o.students = count_arg("--students", v);
        else if (a == "--threads") o.threads = count_arg("--threads", v);
        else if (a == "--lessons") o.lessons = v;
        else o.out = v;
    }
    return o;
}

struct row {
    std::string id;
    std::size_t redrawn = 0, failed = 0;
    double seconds = 0;
};

// Every student of one exercise: slots per student, so the counts do not depend on the threads.
row draw_class(const attn::grade::exercise& x, const options& o) {
    std::vector<unsigned char> redrawn(o.students), failed(o.students);  // [students]
    const auto t0 = std::chrono::steady_clock::now();
    attn::parallel_for(o.students, o.threads, [&](std::size_t i) {
        attn::grade::variant_request r;
        r.secret = "attn-variant-test";
        r.student = "s" + std::to_string(i);
        const attn::grade::exercise_numbers n = attn::grade::numbers_for(x, r);
        redrawn[i] = n.redraws > 0;
        failed[i] = !n.distinguishable;
    });
    row out{x.id};
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (std::size_t i = 0; i < o.students; ++i) {
        out.redrawn += redrawn[i];
        out.failed += failed[i];
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) try {
    const options o = parse(argc, argv);
    const attn::grade::exercise_set set = attn::grade::load_exercise_set(o.lessons);
    std::ostringstream md;
    md << fmt::format("## Variants at class scale (`{}`)\n\n", o.command)
       << fmt::format("{} students per exercise that varies, {} threads; a draw is redrawn while a catalogued "
                      "mistake or a placeholder would be right on it.\n\n", o.students, o.threads)
       << "| exercise | redrawn | not distinguishable | seconds |\n|---|---:|---:|---:|\n";
    std::cout << md.str() << std::flush;
    bool ok = true;
    double total = 0;
    std::size_t varied = 0;
    for (const auto& x : set.all) {
        if (!x.variant.enabled) continue;
        const row r = draw_class(x, o);
        const bool good = r.failed == 0 && r.redrawn < o.students / 4;
        ok = ok && good;
        total += r.seconds;
        ++varied;
        const std::string line = fmt::format("| {} | {:.1f}% | {} | {:.2f} |{}\n", r.id, 100.0 * r.redrawn / o.students,
                                             r.failed, r.seconds, good ? "" : " **FAIL**");
        md << line;
        std::cout << line << std::flush;
    }
    const std::string tail = fmt::format("\n{} exercises, {:.1f} s in all ({:.2f} ms per student and exercise); {}.\n",
                                         varied, total, varied ? 1000.0 * total / double(varied * o.students) : 0.0,
                                         ok ? "every draw distinguishable, redraws under a quarter" : "FAILED");
    md << tail;
    std::cout << tail;
    if (!o.out.empty()) {
        std::ofstream f(o.out, std::ios::app);
        f << "\n" << md.str();
        if (!f) {
            std::cerr << "attn_variant_bench: cannot append to " << o.out << "\n";
            return 2;
        }
    }
    return ok ? 0 : 1;
} catch (const std::exception& e) {
    std::cerr << "attn_variant_bench: " << e.what() << "\n";
    return 2;
}
