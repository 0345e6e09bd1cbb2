// trace/export.hpp — every stage of a trace run under its vocabulary name
// (trace/stages.hpp), for files, in the vocabulary's layouts:
//   per_position  [batch, pos, head, d]          hook_q, hook_k, hook_v, hook_z, hook_result, …
//   per_head      [batch, head, query_pos, key_pos | block]   the score stages, tiled_*, grad maps
//   summed_heads  [batch, query_pos, d_model]    hook_attn_out
// batch and head are always present (size 1 when the spec has neither).
//
// The writers stream: each stage is read row by row from the run (trace_run.hpp's
// stage_row: the kept buffers themselves, or one computed row of the scaled and masked
// scores) and written as it is read, so an export holds no copy of a stage. The .npy
// data of a kept stage goes from the tensor's buffer to write() untouched; JSON and CSV
// are formatted a row at a time. Values are in the run's dtype (float64, or float32
// with --dtype float32: '<f4' .npy, shortest float text).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "trace/trace_run.hpp"
#include "io/output_writer.hpp"

namespace attn::trace {

// Where streamed bytes go (a staged file, stdout).
using byte_sink = std::function<void(const char* data, std::size_t bytes)>;

// The whole run as JSON: metadata, tokens and every stage with axes, shape and
// nested data at full precision (shortest form that round-trips). JSON has no
// infinity: blocked cells of hook_attn_scores are null (the .npy keeps -inf).
void write_json(const trace_run& run, const byte_sink& out);

// Exports stream through the one output writer's staged forms (io/output_writer.hpp).
using io::staged_directory;
using io::staged_file;

// One "<stage>.npy" per stage into dir (C order, the layouts above). Returns the
// number of files. Nothing appears in dir until every file is complete (commit()).
void write_npy_files(const trace_run& run, staged_directory& dir);

// One CSV per 2-D slice: "<stage>.b<B>.h<H>.csv" with a header row of column labels
// (key tokens, d0.. or block0..), then one row per token, first cell the token.
// hook_attn_out: "<stage>.b<B>.csv". Numbers at full precision; blocked cells "-inf".
void write_csv_files(const trace_run& run, staged_directory& dir);

// One stage materialised in float64 (tests and small runs).
struct export_stage {
    stage id;
    std::string name;                // "hook_pattern"
    std::vector<std::string> axes;   // {"batch", "head", "query_pos", "key_pos"}
    std::vector<std::size_t> shape;  // one per axis
    std::vector<double> data;        // C order
};
std::vector<export_stage> export_stages(const trace_run& run);

// Convenience for tests and the golden: the JSON as one string.
std::string to_json(const trace_run& run);

}  // namespace attn::trace
