// grade/variant_check.hpp — is a drawn variant good for grading? Every catalogued
// mistake that applies must change the exercise's answer beyond the tolerance, or a
// wrong method could score full marks by coincidence (a Q_enc row equal to the Q_dec
// row made "queries from the encoder" score 100%). And no placeholder may be right:
// zeros, uniform weights or the mean of V (over every key or the visible ones), Q, K, V
// or the encoder's Q copied where the part's stage has that shape, or the answer on the
// lesson's own numbers (the example the lesson prints); before this, one of those was
// right on 8.4% of 03-causal-cat's variants and 6% of 19-window-1's. The variant
// generator redraws, from the student's seeded stream, until both hold (variant.cpp).
#pragma once

#include <optional>
#include <string>

#include "grade/exercise.hpp"
#include "grade/pipeline.hpp"

namespace attn::grade {

// Why these numbers are no good for grading x, or nullopt when they are. First the
// mistakes: the id of the first form of a mistake that applies such that no part of x
// at or after its first stage, on the rows it changes, differs from the right answer
// beyond that part's tolerance. Then, for a varied exercise, the placeholders: "part
// id: strategy" for the first part on which one is right, within the part's tolerance,
// on every entry the numbers decide (a row equal to the lesson's is the same for every
// draw, and so is a weights or output row that sees one key or none);
// tests/python/test_grade_class_placeholders.py checks those.
std::optional<std::string> variant_fault(const exercise& x, const pipeline_inputs& in);

// Uniform weights ([n_q, n_k]) or the mean of V ([n_q, d_v]), over every key or only the
// visible ones: answers written without computing (the grader gives them no credit).
matrix average_keys(const pipeline_inputs& in, bool of_v, bool only_visible);

}  // namespace attn::grade
