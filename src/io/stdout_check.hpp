// io/stdout_check.hpp — a run whose standard output could not be written (a full
// disk: `attn lesson 4 > /dev/full`) must not exit 0 with truncated output. main()
// passes its exit code through finish_stdout() last.
#pragma once

namespace attn::io {

// Flushes standard output. On a write error (other than EPIPE: the reader went away)
// prints "attn: cannot write to standard output: …" on standard error and returns 2;
// otherwise returns `code`.
int finish_stdout(int code);

}  // namespace attn::io
