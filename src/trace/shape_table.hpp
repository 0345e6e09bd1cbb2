// trace/shape_table.hpp — the shape tables of seed 004 (Q1–Q2) and seed 001: every
// tensor of a cross-attention, multi-head, encoder or decoder block with its symbolic
// shape (B × n_tgt × d_q) and, when numbers are given, the same shape evaluated.
// Shapes come from the core's symbolic shape engine (core/shapes.hpp), so the grader
// and `attn shapes` read the same table the lessons print.
#pragma once

#include <string>
#include <vector>

#include "core/shapes.hpp"
#include "trace/style.hpp"

namespace attn::trace {

struct shape_row {
    std::string tensor;    // "Q = X_tgt W^(q)"
    symbolic_shape shape;  // B × n_tgt × d_q
    std::string what;      // "queries, one per target token"
};

// "cross", "multi_head", "encoder_block", "decoder_block", "ffn".
const std::vector<std::string>& shape_presets();
// One line per preset, for help texts.
std::string shape_preset_help();

// The rows of a preset; throws std::invalid_argument naming the presets.
std::vector<shape_row> shape_rows(const std::string& preset);

// The symbols a preset's shapes use, in order of first appearance.
std::vector<std::string> shape_symbols(const std::string& preset);

// The table: symbolic only when `values` is empty, else with a column of numbers.
// Throws shape_eval_error naming a symbol that has no value.
std::string render_shape_table(const std::string& preset, const symbol_values& values, const style& st);

}  // namespace attn::trace
