// model/stop_request.hpp — Ctrl-C honoured inside a long forward or backward, not only
// between training steps: a verb's signal handler calls request_stop() (async-signal-safe:
// it sets one lock-free flag), and train_forward / train_backward call check_stop()
// between layers, which throws model::stopped once it is set. A step of minutes (a large
// batch) then ends within a layer's time; the trainer's parameters are untouched (the
// optimiser's update never ran), so the checkpoint so far is whole. Nothing sets the flag
// unless a verb installs such a handler: every other caller computes as before.
#pragma once

#include "core/error.hpp"

namespace attn::model {

// Thrown by check_stop(): the run was asked to stop (exit 130, as a shell reports SIGINT).
struct stopped : attn::error {
    stopped() : attn::error("stopped", source_pos{}, "stopped by a signal (Ctrl-C)", 130) {}
};

void request_stop() noexcept;
bool stop_requested() noexcept;
// Throws stopped when request_stop() was called.
void check_stop();

}  // namespace attn::model
