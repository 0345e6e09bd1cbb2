// grade/answer_value.hpp — one value of a submission, with where it is: the one value
// tree of TOML and JSON documents (io/value_tree), under the grader's name for it.
#pragma once

#include "io/value_tree.hpp"
#include "lessons/lesson.hpp"

namespace attn::grade {

using lessons::source_pos;
using answer_value = io::value_node;

}  // namespace attn::grade
