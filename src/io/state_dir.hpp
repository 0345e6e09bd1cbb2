// io/state_dir.hpp — where attn keeps its own state between runs: the lesson progress
// file and the key that vouches for the files of export folders. $XDG_STATE_HOME/attn
// (an absolute XDG_STATE_HOME only, as the XDG spec says), else
// $HOME/.local/state/attn, else "" (nowhere).
#pragma once

#include <array>
#include <string>

namespace attn::io {

std::string state_dir();

// The per-user key of export manifests (state_dir()/export-key, 64 hex digits, made
// with random bytes and mode 0600 on first use). Without a usable state folder, a key
// for this run only: what this run writes is then vouched for by no later run, so a
// later export keeps those files and names them rather than replacing them.
const std::array<unsigned char, 32>& export_key();

}  // namespace attn::io
