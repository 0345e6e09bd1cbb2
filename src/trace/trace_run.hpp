// trace/trace_run.hpp — one `attn trace` computation: every batch item of a checked
// spec through the fast path of attention's recipe (core/recipe.hpp: every head, with
// the per-head results through W_O and their sum when W_O is given, and the options of
// lessons 15–19, trace_extras.hpp), in float64 (default) or float32.
//
// What is kept per (batch, head): q, k, v, scores_raw, weights and z; the scaled and
// masked scores are computed row by row when read (stage_row), so an export streams
// them without ever holding them. In one-query mode (a --query trace with no export)
// only that query's row of the score stages is kept: n_k numbers, not n_q · n_k.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/attention.hpp"
#include "core/fast_attention.hpp"
#include "core/recipe.hpp"
#include "io/trace_spec.hpp"
#include "trace/stages.hpp"
#include "trace/trace_extras.hpp"

namespace attn::trace {

enum class trace_dtype { float64, float32 };

struct trace_run_options {
    trace_dtype dtype = trace_dtype::float64;
    std::optional<std::size_t> one_query;  // keep only this query row of the score stages
    unsigned threads = 0;                  // 0 = every hardware thread
};

// One batch item and head as the recipe's fast path left it (core/recipe.hpp).
template <class T>
using head_data = fast_recipe_head<T>;

template <class T>
struct run_data {
    std::vector<head_data<T>> heads;       // [batch · heads], item b·heads + h
    std::vector<fast_matrix<T>> attn_out;  // [batch] each [n_q, d_model] = Σ_h result_h (with W_O)
};

struct trace_run {
    io::trace_inputs inputs;
    run_labels labels;
    std::size_t batch = 1, heads = 1;
    bool has_result = false;                   // W_O given: result and attn_out exist
    trace_dtype dtype = trace_dtype::float64;
    std::optional<std::size_t> one_query;      // set: score stages hold only this query's row
    std::shared_ptr<run_data<double>> data64;  // exactly one of the two is set
    std::shared_ptr<run_data<float>> data32;
    trace_extras extras;                       // rope, tile, backward, kv_heads (trace/trace_extras.hpp)

    std::size_t n_q() const { return inputs.n_q; }
    std::size_t n_k() const { return inputs.n_k; }
    std::size_t d_model() const { return inputs.w_o ? inputs.w_o->shape(1) : 0; }
    double scale() const;
    bool attends(std::size_t b, std::size_t query, std::size_t key) const;
    bool row_fully_masked(std::size_t b, std::size_t h, std::size_t query) const;

    // The 2-D slice of a forward stage (q … attn_out) for batch item b and head h
    // (attn_out ignores h): its rows and columns, and one value.
    std::size_t rows(stage s) const;
    std::size_t cols(stage s) const;
    double value(stage s, std::size_t b, std::size_t h, std::size_t i, std::size_t j) const;

    // Every stage of head (b, h) as the reference struct, in double (for the per-token
    // trace and the HTML report; materialises the scaled and masked scores).
    attention_steps head_steps(std::size_t b, std::size_t h) const;
};

trace_run run_trace(const io::trace_inputs& in, const trace_run_options& options = {});

// Row i of the slice (b, h) of forward stage s, cols(s) values of the run's dtype T:
// a pointer into the kept buffer, or into `scratch` (cols(s) values) for the scaled
// and masked scores, which are computed here. T must be the run's dtype.
template <class T>
const T* stage_row(const trace_run& run, stage s, std::size_t b, std::size_t h, std::size_t i, T* scratch);

// Whether the run has this stage (W_O, rope, tile or backward given when it needs them).
bool stage_available(const trace_run& run, stage s);
// Throws std::invalid_argument "FLAG NAME: the spec has no W_O (…)" when it has not.
void check_available(const trace_run& run, stage s, const char* flag);

// Picks a query row by token text, by its label in the tables ("the₄" for a token that
// repeats: trace/stages.hpp told_apart), or by 0-based index when no token has that
// text; throws attn::error listing the tokens otherwise, or the labels of a token
// that repeats.
std::size_t find_query_row(const run_labels& labels, const std::string& token);

}  // namespace attn::trace
