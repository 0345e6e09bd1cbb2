// trace/model_export.hpp — every hook a model's forward kept (model/hooks.hpp), for
// files: `attn model run --json FILE|-` and `--npy DIR`.
//
// JSON in `attn trace --json`'s form: metadata, then "stages" → one entry per hook in
// forward order, {"axes", "shape", "data"} with data nested by the axes, full precision
// (shortest text that reads back), masked cells of hook_attn_scores null (JSON has no
// −inf; the .npy keeps −inf). The batch axis holds one row per --tokens sequence.
// .npy: one "<hook>.npy" per hook ("blocks.0.attn.hook_q.npy"), '<f4' or '<f8' as the
// forward ran, streamed straight from the kept buffers (trace/export_format.hpp).
#pragma once

#include <string>
#include <vector>

#include "io/output_writer.hpp"
#include "model/traced_forward.hpp"
#include "trace/export.hpp"

namespace attn::trace {

// What the JSON says about the run besides its stages.
struct model_run_meta {
    std::string layout;                             // "huggingface-gpt2", "mingpt" (the checkpoint's)
    std::vector<std::vector<std::string>> texts;    // [B][P] token texts (with a tokenizer), else empty
};

template <class T>
void write_model_json(const model::forward_acts<T>& acts, const model::architecture& config, const model_run_meta& meta,
                      const byte_sink& out);

// One .npy per hook into dir; returns the number of files.
template <class T>
std::size_t write_model_npy(const model::forward_acts<T>& acts, const model::architecture& config, io::staged_directory& dir);

}  // namespace attn::trace
