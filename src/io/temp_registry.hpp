// io/temp_registry.hpp — temporary files the output writer has open, removed if the
// process is stopped by SIGINT, SIGTERM, SIGHUP or SIGQUIT. The handler only unlinks
// names held in a fixed table (async-signal-safe), then re-raises the signal with its
// default action so the exit status still says what stopped the run.
#pragma once

#include <string>

namespace attn::io {

// Starts tracking a temporary file (or, with is_dir, a temporary directory, removed
// after the files). Returns a slot to pass to untrack_temp; -1 if the table is full
// (the file is then simply not cleaned on a signal). Installs the handlers on first use.
int track_temp(const std::string& path, bool is_dir = false);

// Installs the SIGINT/SIGTERM/SIGHUP/SIGQUIT handlers (track_temp does it once;
// a signal already ignored stays ignored).
void install_temp_cleanup_handlers();

// Installs them now if track_temp has not yet: a verb with its own SIGINT handler (the
// trainer's "stop after this step") calls this first, so a later output's track_temp
// never replaces that handler.
void ensure_temp_cleanup_handlers();

// Removes every temporary still tracked (async-signal-safe: unlink and rmdir of the fixed
// table's names), for a signal handler that ends the process itself (cli/model_stop).
void remove_live_temps() noexcept;

// The temporary was renamed into place or removed: stop tracking it.
void untrack_temp(int slot);

}  // namespace attn::io
