// grade/variant_space.hpp — is an exercise's variant space large enough for a class?
// A student whose numbers equal a classmate's can copy that classmate's answers for
// full marks, and no copy check can tell (issue 36: lessons 20/22 drew from 729 inputs
// and 42% of a class of 300 shared theirs). So a class is graded (`attn grade --class`)
// or handed out (`attn exercise template --roster`, `attn exercise show --students`)
// only when, for every per-student exercise, at most 1% of the class would share its
// variant with someone: with N inputs the draw allows and C students, a student shares
// with one of C − 1 others with probability 1 − (1 − 1/N)^(C − 1) (the computation of
// tests/python/test_grade_variant_space_models.py). N is the draw's own count (before the
// variant check's redraws, which only make it smaller): halves or integers in the
// range per entry of each drawn role, a row of zeros drawn again; the drawn tokens of a
// model exercise, distinct in a block that repeats. A teacher who accepts more sharing
// says so with --small-variant-space-ok.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "grade/exercise.hpp"

namespace attn::grade {

// The share of a class allowed to share its variant with a classmate.
constexpr double variant_share_limit = 0.01;

// ln N: the natural log of how many inputs x's variant draws from (0 when it does not vary).
double variant_space_log(const exercise& x);

// The share of a class of `students` drawn uniformly from e^log_inputs inputs whose input
// another student of the class also has: 1 − (1 − 1/N)^(students − 1).
double variant_shared_share(double log_inputs, std::size_t students);

// Refuses (attn::error, exit 2) when a per-student exercise among xs would have more than
// variant_share_limit of a class of `students` share a variant: every such exercise named,
// with its space, the class size and the share. `insist` names the flag that overrides it.
void check_variant_spaces(const std::vector<const exercise*>& xs, std::size_t students, const std::string& insist);

}  // namespace attn::grade
