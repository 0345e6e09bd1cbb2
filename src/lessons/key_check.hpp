// lessons/key_check.hpp — unknown keys in lesson tables and the closest known key,
// so a typo such as `stgae = "weights"` is reported as "did you mean 'stage'?"
// at the key's own file:line:col instead of being silently ignored.
#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "lessons/toml_read.hpp"

namespace attn::lessons {

// Edit distance (insertions, deletions, substitutions, adjacent swaps).
std::size_t edit_distance(const std::string& a, const std::string& b);

// The known word closest to `found`, or "" when none is close enough to be a typo.
std::string closest_word(const std::string& found, const std::vector<std::string>& known);

// "did you mean 'stage'? " or "" — the start of a hint for messages.
std::string did_you_mean(const std::string& found, const std::vector<std::string>& known);

// " (did you mean 'stage'?)" or "" — the end of a message.
std::string hint_suffix(const std::string& found, const std::vector<std::string>& known);

// Records one problem per key of `t` that is not in `known`, at the key's position:
// "unknown key 'stgae' in <where> (did you mean 'stage'?; known keys: ...)".
void check_known_keys(const toml_reader& rd, const toml::table& t, const std::string& where,
                      const std::vector<std::string>& known);

}  // namespace attn::lessons
