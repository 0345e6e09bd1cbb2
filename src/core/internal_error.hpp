// core/internal_error.hpp — the error for a broken promise of attn's own: a caller handed
// a function what its contract rules out (an all-zero PRNG state, a backward stage to
// stage_row, a dtype write_safetensors never writes, libsodium failing to start). No
// input of the user's can cause it, so it is no exit 2 "bad input": it is an
// attn::error with exit code 70 (EX_SOFTWARE) whose message says so, and main prints it
// like every other error:
//   attn: internal error: stage_row: hook_attn_grad is not a forward stage (please report it; exit 70)
#pragma once

#include <string>

#include "core/error.hpp"

namespace attn {

struct internal_error : error {
    static constexpr int code = 70;
    explicit internal_error(const std::string& message)
        : error(as_written{}, "internal", source_pos{}, "internal error: " + message + " (please report it; exit 70)", code) {}
};

}  // namespace attn
