// tests/support/fuzz_targets.hpp — the fuzz targets of tests/fuzz/, as plain functions
// so that the same code runs under libFuzzer (clang, tests/fuzz/fuzz_main.cpp) and in
// the g++ test suite, which replays the seed corpora and every crasher kept under
// tests/fuzz/regressions/ (tests/fuzz_replay_test.cpp). A refusal (an attn::error from
// the parsers) is the expected outcome of bad bytes; a crash, a leak, undefined
// behaviour, a hang, runaway memory, an internal_error or an exception from outside the
// one error model is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/internal_error.hpp"

namespace attn::fuzz {

// Runs one target's work. A refusal (an attn::error: input_error, lesson_error,
// submission_error, shape errors ...) is the point of a bad input. An internal_error (a
// broken promise, exit 70) or any exception from outside the one error model escapes,
// so libFuzzer reports the input (and the replay test names it).
template <class F>
int refusals_are_fine(F&& f) {
    try {
        f();
    } catch (const internal_error&) {
        throw;
    } catch (const error&) {
    }
    return 0;
}

using target_fn = int (*)(const std::uint8_t* data, std::size_t size);

struct target {
    const char* name;  // the folder under tests/fuzz/corpus/ and tests/fuzz/regressions/
    target_fn run;
};

// spec_toml, lesson_toml, answer_toml, answer_json, npy, csv, shape, safetensors, tokenizer,
// assignment, review_sheet, gradescope_metadata, progress, gguf.
const std::vector<target>& all_targets();

int spec_toml(const std::uint8_t* data, std::size_t size);    // io::parse_trace_spec → resolve → trace → report
int lesson_toml(const std::uint8_t* data, std::size_t size);  // lessons::load_lesson_draft → render
int answer_toml(const std::uint8_t* data, std::size_t size);  // grade::read_submission_text (TOML) → grade
int answer_json(const std::uint8_t* data, std::size_t size);  // grade::read_submission_text (JSON) → grade
int npy(const std::uint8_t* data, std::size_t size);          // io::parse_npy (first byte: allow bool)
int csv(const std::uint8_t* data, std::size_t size);          // io::parse_csv
int shape(const std::uint8_t* data, std::size_t size);        // core parse_shape / parse_dim
int safetensors(const std::uint8_t* data, std::size_t size);  // model::read_checkpoint_bytes (tests/support/fuzz_safetensors.cpp)
int tokenizer(const std::uint8_t* data, std::size_t size);    // model::bpe_tokenizer (tests/support/fuzz_tokenizer.cpp)
int assignment(const std::uint8_t* data, std::size_t size);   // grade::read_assignment → apply_assignment
int review_sheet(const std::uint8_t* data, std::size_t size); // grade::review_table::parse
int gradescope_metadata(const std::uint8_t* data, std::size_t size);  // grade::read_gradescope_metadata
int progress(const std::uint8_t* data, std::size_t size);     // lessons::load_progress → progress_text
int gguf(const std::uint8_t* data, std::size_t size);         // model::parse_gguf → getters, architecture, dequantize (tests/support/fuzz_gguf.cpp)

}  // namespace attn::fuzz
