// grade/variant_check.hpp — is a drawn variant good for grading? Every catalogued
// mistake that applies must change the exercise's answer beyond the tolerance, or a
// wrong method could score full marks by coincidence (a Q_enc row equal to the Q_dec
// row made "queries from the encoder" score 100%). The variant generator redraws
// until this holds (variant.cpp).
#pragma once

#include <string>

#include "grade/exercise.hpp"
#include "grade/pipeline.hpp"

namespace attn::grade {

// True when, for every form of every mistake that applies to these inputs, some part
// of x at or after the mistake's first stage, on the rows it changes, differs from
// the right answer beyond that part's tolerance. `which` gets the first offender's id.
bool every_mistake_distinguishable(const exercise& x, const pipeline_inputs& in, std::string* which = nullptr);

}  // namespace attn::grade
