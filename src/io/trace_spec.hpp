// io/trace_spec.hpp — a spec file for `attn trace`, read and checked.
//
// A spec names the kind (self | causal | cross), the tokens, and the inputs:
// either Q, K, V directly or X (and X_src for cross) with W_Q, W_K, W_V (and W_O).
// Each input is an inline TOML array, or a path (relative to the spec file) to a
// .npy (float32/float64, C order) or .csv file. Optional: heads, scale, causal,
// [mask] with an explicit polarity (attend | block | key_is_padding), bias.
// load_trace_spec() reads the file; resolve_trace_inputs() checks that every shape
// chains and cuts the arrays into per-batch matrices for the core. Both throw
// input_error with file:line:col of the offending key.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "io/nd_array.hpp"

namespace attn::io {

struct trace_spec {
    std::string file;                       // the spec's path, as given
    std::string kind = "self";              // "self" | "causal" | "cross"
    std::string title;                      // optional; default from the kind
    std::vector<std::string> query_tokens;  // [n_q] empty = "t0", "t1", ... (self) / "q0".. (cross)
    std::vector<std::string> key_tokens;    // [n_k] self: same as query_tokens
    source_pos tokens_where;
    std::size_t heads = 1;
    std::optional<double> scale;            // divisor; default √d_head
    bool causal = false;                    // kind "causal" or causal = true
    std::map<std::string, nd_array> inputs; // Q, K, V, X, X_src, W_Q, W_K, W_V, W_O
    std::optional<nd_array> attend;         // mask in attend polarity: 1 = may look
    std::optional<nd_array> key_is_padding; // [n_k] or [batch, n_k], 1 = padding key
    std::optional<nd_array> bias;           // [n_q, n_k] or [heads, n_q, n_k]
    // Lessons 15–19 (io/trace_spec_extras.hpp); `backward` is inputs["backward"].
    std::optional<std::size_t> tile, kv_heads, window;
    std::optional<double> rope_base;
    source_pos tile_where, kv_heads_where, window_where, rope_where;
    source_pos root;                        // the file itself, line 1
};

trace_spec load_trace_spec(const std::string& path);

// The checked inputs, cut per batch item, ready for the core.
struct trace_inputs {
    std::string kind, title;
    std::vector<std::string> query_tokens, key_tokens;  // [n_q], [n_k]
    std::size_t batch = 1, heads = 1, n_q = 0, n_k = 0;
    std::size_t d_head = 0, d_head_v = 0;   // per head, after splitting the columns
    std::optional<double> scale;
    bool projected = false;                 // X·W given instead of Q, K, V
    std::vector<matrix> q, k, v;            // [batch] each [n, heads·d_head] (direct inputs)
    std::vector<matrix> x, x_src;           // [batch] each [n, d_model] (projected inputs)
    matrix w_q, w_k, w_v;                   // [d_model, heads·d_head]
    std::optional<matrix> w_o;              // [heads·d_head_v, d_out]
    std::vector<bool_matrix> attend;        // [batch] each [n_q, n_k]; true = may look
    bool has_mask = false;                  // a mask or causal was given (else all true)
    std::vector<matrix> bias;               // [heads] each [n_q, n_k]; empty = no bias
    // Lessons 15–19 (io/trace_spec_extras.hpp).
    std::size_t kv_heads = 1;               // G; K and V hold kv_heads·d_head columns
    std::optional<std::size_t> tile;        // also run the tiled forward, this many keys per block
    std::optional<double> rope_base;        // rotate q and k by position before the scores
    std::optional<std::size_t> window;      // already folded into attend
    std::vector<matrix> grad_output;        // [batch] each [n_q, heads·d_head_v]; empty = no backward
};

trace_inputs resolve_trace_inputs(const trace_spec& spec);

}  // namespace attn::io
