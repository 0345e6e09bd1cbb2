// grade/kinds/typed_line.hpp — the readers of a line typed at the practice prompt
// (io/typed_line), one per kind: each kind's row names its reader.
#pragma once

#include "grade/answer_value.hpp"
#include "io/typed_line.hpp"

namespace attn::grade {

using io::typed_choice;
using io::typed_numbers;
using io::typed_picks;
using io::typed_shape;
using io::typed_text;

}  // namespace attn::grade
