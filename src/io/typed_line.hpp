// io/typed_line.hpp — one line typed at the practice prompt as the same value tree an
// answer file gives (io/value_tree), one reader per exercise kind (grade/kinds: each
// kind's row names its reader):
//   numeric  "2", "0.1 0.2 0.3", "0.1 0.2; 0.3 0.4", "[[0.1, 0.2], [0.3, 0.4]]", "cat"
//   shape    "[5, 4]", "5 × 4", "B × n × d"
//   choice   a letter "b", a number "2" (the second choice), or the choice's text
//   multi    every pick: "a c", "a, c" or "1 3"
//   open     the text (not graded there: the teacher reads it)
// Only the layout is decided here (a number, a row, rows); whether the numbers are
// right, or even numbers, is the grader's to say, in its words. Each reader takes the
// trimmed line; nullopt with error set for brackets that do not match.
#pragma once

#include <optional>
#include <string>

#include "io/value_tree.hpp"

namespace attn::io {

std::optional<value_node> typed_numbers(const std::string& line, std::size_t n_choices, std::string& error);
std::optional<value_node> typed_shape(const std::string& line, std::size_t n_choices, std::string& error);
std::optional<value_node> typed_choice(const std::string& line, std::size_t n_choices, std::string& error);
std::optional<value_node> typed_picks(const std::string& line, std::size_t n_choices, std::string& error);
std::optional<value_node> typed_text(const std::string& line, std::size_t n_choices, std::string& error);

}  // namespace attn::io
