// grade/exercise_reader.hpp — the checked reader of [[exercise]] tables behind
// read_exercises (internal to grade/): every problem is recorded as file:line:col.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "grade/exercise.hpp"
#include "io/toml_read.hpp"

namespace attn::grade::detail {

struct exercise_reader {
    io::toml_reader rd;
    const lessons::lesson& l;

    const matrix* named_matrix(const toml::table& t, const std::string& key);
    tolerance read_tol(const toml::table& t, tolerance base);
    // Where a numeric exercise's numbers come from (exercise_setup.cpp).
    bool read_setup(const toml::table& t, exercise& x);
    bool read_student_inputs(const toml::table& t, numeric_setup& s);
    bool read_run(const toml::table& t, const std::string& run, numeric_setup& s);
    bool read_named_inputs(const toml::table& t, numeric_setup& s, std::size_t problems_before);
    void read_overrides(const toml::table& t, numeric_setup& s);  // q_rows, pads, causal, scale, softmax
    void keep_rows(const std::vector<std::size_t>& rows, numeric_setup& s);
    void read_variant(const toml::table& t, exercise& x);
    void read_extras(const toml::table& t, numeric_setup& s);  // lessons 15–19: grad, tile, rope, window
    bool read_model(const toml::table& t, numeric_setup& s);   // lessons 20–22: a trained head
    void check_shape(const toml::node* where, const std::string& text);
    void read_part_fields(const toml::table& t, const exercise& x, part_spec& p, const tolerance& base);
    void check_id(const toml::table& t, const std::string& id);
    void read_points_and_choices(const toml::table& t, exercise& x);
    bool read_parts(const toml::table& t, exercise& x, const tolerance& base);
    void share_points(const toml::table& t, exercise& x);
    std::optional<exercise> read(const lessons::exercise_decl& d, const toml::table& t);
};

}  // namespace attn::grade::detail
