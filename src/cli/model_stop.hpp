// cli/model_stop.hpp — Ctrl-C in the model verbs that run forwards (run, heads, explain,
// circuits, patch, generate): within a second, a clear message, exit 130, nothing
// half-written. The first SIGINT asks the computation to stop (model/stop_request: the
// forward's layers, its threads' task loop and the long per-query loops check it), so
// the run unwinds at its next check — milliseconds inside a product — and attn's error
// path prints "attn: stopped by a signal (Ctrl-C)", removes the outputs' temporaries and
// exits 130. Phases that hold no check (reading a checkpoint, writing an export) are
// covered by a deadline: one second after the signal (or at a second Ctrl-C) the handler
// itself removes the tracked temporaries (io/temp_registry), says the same words and
// ends the process with 130. `attn model train` keeps its own handler (it saves the
// checkpoint so far, which may take longer than a second).
#pragma once

namespace attn::cli {

// Installs the SIGINT handler (and its SIGALRM deadline) for the rest of the run; the
// temporaries' handlers for the other signals stay. A SIGINT already ignored (nohup, a
// background job of a non-interactive shell) stays ignored.
void stop_on_interrupt();

}  // namespace attn::cli
