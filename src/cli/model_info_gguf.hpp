// cli/model_info_gguf.hpp — `attn model info FILE.gguf`: what a GGUF file holds, read
// from its header only (milliseconds, whatever the file's size): the architecture and
// its choices, each tensor type's count, the parameter count. With --json FILE|- the
// whole header as JSON (every metadata key with its GGUF type and value, the tensor
// table); with --tensor NAME one tensor dequantized (a summary on screen, every value
// with --json).
#pragma once

#include <string>

#include "cli/layout.hpp"

namespace attn::model {
class gguf_header;
}

namespace attn::cli {

struct gguf_info_options {
    std::string file;
    std::string tensor;  // --tensor NAME, "" = none
    std::string json;    // --json FILE|-, "" = none
    layout_options layout;
};

void run_gguf_info(const gguf_info_options& o);
// The same on a parsed header whose bytes are alive (a GGUF built into attn); o.file is
// what the summary names.
void run_gguf_info(const gguf_info_options& o, const model::gguf_header& h);

}  // namespace attn::cli
