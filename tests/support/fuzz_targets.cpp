// tests/support/fuzz_targets.cpp — see fuzz_targets.hpp. Each target feeds the bytes
// to one parser and, when they parse, through what a real run does next (resolve,
// compute, render, grade), catching only the refusals attn reports as errors.
#include "support/fuzz_targets.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include "core/shapes.hpp"
#include "grade/exercise.hpp"
#include "grade/grader.hpp"
#include "grade/report.hpp"
#include "grade/reviews.hpp"
#include "grade/submission.hpp"
#include "io/csv_read.hpp"
#include "io/npy_read.hpp"
#include "io/size_budget.hpp"
#include "io/trace_spec.hpp"
#include "lessons/lesson_loader.hpp"
#include "lessons/lesson_render.hpp"
#include "lessons/progress.hpp"
#include "trace/overflow_check.hpp"
#include "trace/trace_report.hpp"
#include "trace/trace_run.hpp"

namespace attn::fuzz {

namespace {

std::string text_of(const std::uint8_t* data, std::size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// A small budget: a fuzz input may declare large shapes; refusing them is the point.
void small_budget() { io::set_max_elements(std::size_t{1} << 20); }

const grade::exercise_set& exercises() {
    static const grade::exercise_set set = grade::load_exercise_set(lessons::lessons_dir());
    return set;
}

int answer(const std::uint8_t* data, std::size_t size, bool json) {
    return refusals_are_fine([&] {
        const grade::submission sub = grade::read_submission_text(text_of(data, size), "fuzz-answer", json);
        grade::grade_options g;
        g.student = "fuzz";
        g.lesson_numbers = true;
        (void)grade::report_text(grade::grade_submission(sub, exercises(), g));
    });
}

// The bytes as a file, for the readers that take a path (as attn reads them: through
// io::read_input_file); removed when done, so nothing is left in the temp folder.
struct scratch_file {
    std::string path;
    scratch_file(const std::uint8_t* data, std::size_t size, const char* suffix) {
        path = (std::filesystem::temp_directory_path() / ("attn-fuzz-" + std::to_string(::getpid()) + suffix)).string();
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    ~scratch_file() { std::filesystem::remove(path); }
};

}  // namespace

const std::vector<target>& all_targets() {
    static const std::vector<target> t = {{"spec_toml", spec_toml},       {"lesson_toml", lesson_toml},
                                          {"answer_toml", answer_toml},   {"answer_json", answer_json},
                                          {"npy", npy},                   {"csv", csv},
                                          {"shape", shape},               {"safetensors", safetensors},
                                          {"tokenizer", tokenizer},       {"assignment", assignment},
                                          {"review_sheet", review_sheet}, {"gradescope_metadata", gradescope_metadata},
                                          {"progress", progress},
                                          {"gguf", gguf}};
    return t;
}

int spec_toml(const std::uint8_t* data, std::size_t size) {
    small_budget();
    return refusals_are_fine([&] {
        const io::trace_spec spec = io::parse_trace_spec(text_of(data, size), "/nonexistent-fuzz-dir/spec.toml");
        const trace::trace_run run = trace::run_trace(io::resolve_trace_inputs(spec));
        trace::require_finite_stages(run, spec.root);
        (void)trace::render_trace_report(run, trace::report_options{});
    });
}

int lesson_toml(const std::uint8_t* data, std::size_t size) {
    small_budget();
    return refusals_are_fine([&] {
        lessons::lesson_draft d = lessons::load_lesson_draft(text_of(data, size), "fuzz-lesson.toml");
        if (!d.parsed || !d.problems.empty()) return;
        std::ostringstream out;
        lessons::render_lesson(d.content, out, lessons::render_options{});
    });
}

int answer_toml(const std::uint8_t* data, std::size_t size) { return answer(data, size, false); }
int answer_json(const std::uint8_t* data, std::size_t size) { return answer(data, size, true); }

int npy(const std::uint8_t* data, std::size_t size) {
    small_budget();
    if (size == 0) return 0;
    return refusals_are_fine([&] { (void)io::parse_npy(text_of(data + 1, size - 1), "fuzz.npy", io::npy_options{(data[0] & 1) != 0}); });
}

int csv(const std::uint8_t* data, std::size_t size) {
    small_budget();
    return refusals_are_fine([&] { (void)io::parse_csv(text_of(data, size), "fuzz.csv"); });
}

int shape(const std::uint8_t* data, std::size_t size) {
    return refusals_are_fine([&] {
        const std::string text = text_of(data, size);
        const symbolic_shape s = parse_shape(text);
        (void)to_string(s);
        (void)parse_dim(text);
    });
}

int assignment(const std::uint8_t* data, std::size_t size) {
    const scratch_file f(data, size, ".assignment.toml");
    return refusals_are_fine([&] {
        const grade::assignment a = grade::read_assignment(f.path, exercises());
        grade::grade_options g;
        grade::apply_assignment(a, g, std::nullopt);
    });
}

int review_sheet(const std::uint8_t* data, std::size_t size) {
    small_budget();
    return refusals_are_fine([&] { (void)grade::review_table::parse(text_of(data, size), "fuzz-reviews.csv", exercises()); });
}

int gradescope_metadata(const std::uint8_t* data, std::size_t size) {
    const scratch_file f(data, size, ".metadata.json");
    return refusals_are_fine([&] { (void)grade::read_gradescope_metadata(f.path); });
}

int progress(const std::uint8_t* data, std::size_t size) {
    const scratch_file f(data, size, ".progress.toml");
    return refusals_are_fine([&] {
        const lessons::progress_load p = lessons::load_progress(f.path);
        (void)lessons::progress_text(p.p);
    });
}

}  // namespace attn::fuzz
