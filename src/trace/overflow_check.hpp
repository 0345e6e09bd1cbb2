// trace/overflow_check.hpp — finite inputs can still give non-finite stages: Q = K =
// 1e308 makes Q·Kᵀ overflow to +inf, `scale = 1e-308` makes the scaled scores
// overflow, a large X·W overflows Q. attn refuses such a run (exit 2) rather than
// tracing it: an overflowed score is not a blocked key, and softmax over it would
// show weights 0 with the note "every key is blocked" although nothing is masked.
// (docs/safety.md: the decision, and why.)
#pragma once

#include <optional>
#include <string>

#include "core/attention.hpp"
#include "io/input_error.hpp"
#include "trace/trace_run.hpp"

namespace attn::trace {

// Throws io::input_error at `spec` naming the batch item, head, stage, query row and
// key (or column) of the first non-finite value where a finite one was due: every
// value of q, k, v, raw and scaled scores, weights and output; in masked scores every
// cell the mask lets through (blocked cells are −inf by design).
// Also checks the extras (require_finite_extras).
void require_finite_stages(const trace_run& r, const io::source_pos& spec);

// The stages of lessons 15–17 (rotated q and k, the online softmax, every gradient):
// every value finite, except a running max that has seen only blocked keys (−inf).
void require_finite_extras(const trace_run& r, const io::source_pos& spec);

// For lessons (computed on the reference path): the first non-finite value of a run's
// stages, named ("hook_attn_scores_raw is +infinity at row 0, column 1: ..."), or
// nothing. Blocked cells of the masked scores may be −inf.
std::optional<std::string> non_finite_step(const attention_steps& steps);

}  // namespace attn::trace
