// model/stop_request.hpp — Ctrl-C honoured inside a long forward or backward, not only
// between training steps: a verb's signal handler calls request_stop() (async-signal-safe:
// it sets one lock-free flag), and train_forward / train_backward call check_stop()
// between layers, which throws model::stopped once it is set. Inside a layer the
// threads' task loop (training::for_tasks: every product, attention and norm of the
// forward, the backward and generate's decode steps) skips its remaining tasks once a
// stop is pending and throws on the calling thread when the tasks are done, and the
// long per-query loops check stop_pending() between rows, so one large matrix product
// ends within a block's time (milliseconds), not a layer's. A step of minutes then ends
// within that time; the trainer's parameters are untouched (the optimiser's update runs
// under a stop_deferred: it is never cut in half). Nothing sets the flag unless a verb
// installs such a handler: every other caller computes as before, bit for bit.
#pragma once

#include "core/error.hpp"

namespace attn::model {

// Thrown by check_stop(): the run was asked to stop (exit 130, as a shell reports SIGINT).
struct stopped : attn::error {
    stopped() : attn::error("stopped", source_pos{}, "stopped by a signal (Ctrl-C)", 130) {}
};

void request_stop() noexcept;
// True once request_stop() was called (deferred or not): the trainer's loop ends.
bool stop_requested() noexcept;
// True when a stop was requested and no stop_deferred is alive: work under way may be
// abandoned now (its results are never used: check_stop() throws next).
bool stop_pending() noexcept;
// Throws stopped when stop_pending().
void check_stop();

// While one is alive, stop_pending() is false and check_stop() does not throw: work that
// must finish whole once begun (the optimiser's update of every parameter) runs to its end;
// a request made meanwhile waits for the next check after it.
class stop_deferred {
public:
    stop_deferred() noexcept;
    ~stop_deferred();
    stop_deferred(const stop_deferred&) = delete;
    stop_deferred& operator=(const stop_deferred&) = delete;
};

}  // namespace attn::model
