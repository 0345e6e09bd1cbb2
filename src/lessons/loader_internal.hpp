// lessons/loader_internal.hpp — the loader's working state, shared by the files
// that read each part of a lesson (lesson_loader.cpp: header, tokens, matrices,
// steps; loader_compute.cpp: [derived] and [runs] in dependency order;
// loader_derive.cpp: the derived-matrix ops; loader_runs.cpp: attention runs;
// loader_exercise*.cpp: exercises).
// Not part of the library's interface: only src/lessons includes it.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/blocks.hpp"
#include "core/multi_head.hpp"
#include "lessons/lesson.hpp"
#include "lessons/lesson_parts.hpp"
#include "io/toml_read.hpp"

namespace attn::lessons::detail {

// The keys that name a matrix (or a run's stage, "run.weights") in [derived] and [runs].
const std::vector<std::string>& reference_keys();

struct loader;

// The ops of [derived.X], a registry like the show kinds: each row carries the
// keys it accepts ("op" included), one line for messages and the teachers' guide,
// and the function that computes the matrix (std::nullopt after reporting through
// the loader's reader). A new op is one function and one row in its family.
struct derive_op {
    using fn = std::optional<matrix> (*)(loader& ld, const toml::table& d, const std::string& name);
    std::string name;
    std::vector<std::string> keys;
    std::string what;
    fn compute = nullptr;
};
const std::vector<derive_op>& derive_ops();    // every family below, in order
const derive_op* find_derive_op(const std::string& name);
std::vector<derive_op> matrix_derive_ops();    // loader_derive.cpp: scale_columns, rows, matmul, add, transpose
std::vector<derive_op> core_derive_ops();      // loader_derive_more.cpp: scale, random_normal, lookup, layer_norm,
                                               //   relu, ffn, distance_bias, sinusoidal
std::vector<derive_op> model_derive_ops();     // loader_derive_model.cpp: model_hook

// What a block kind's function reads its [blocks.X] table with: the checked
// accessors every kind shares (loader_blocks.cpp).
struct block_reader {
    loader& ld;
    const std::string& name;  // X of [blocks.X]
    const toml::table& b;
    std::size_t before;       // problems already reported when the block started

    bool failed() const;      // a problem was reported since the block started
    const matrix* m(const std::string& key);  // a required matrix reference
    std::size_t heads();
    vector bias(const std::string& key);      // an optional one-row matrix, flattened
    ffn_weights ffn();
    multi_head_weights mha(const std::string& prefix, std::size_t h);
    norm_placement placement();
    layer_norm_params norm();
    std::vector<std::string> tokens(const std::string& key, std::size_t n);
};

// The kinds of [blocks.X], a registry: keys ("kind" included), one line, and the
// function that computes the block into `res` and registers its pieces; false
// after reporting. A new kind is one function and one row in its family.
struct block_kind {
    using fn = bool (*)(block_reader& r, block_result& res);
    std::string name;
    std::vector<std::string> keys;
    std::string what;
    fn compute = nullptr;
};
const std::vector<block_kind>& block_kinds();  // every family below, in order
std::vector<block_kind> core_block_kinds();    // loader_blocks.cpp: multi_head, encoder_block, decoder_block,
                                               //   decoding, stacked

// The keys a [runs.X] table accepts.
const std::vector<std::string>& run_keys();

struct loader {
    toml_reader rd;
    lesson& out;
    // Names declared in the file whose computation failed (already reported), so
    // that later references to them do not repeat the same problem.
    std::set<std::string> broken;
    // Every matrix name a reference may use: [matrices], [derived], "run.stage".
    std::set<std::string> declared;
    // The parsed file. Show items and exercises point into it (aliasing shared_ptr)
    // rather than copying, because a copied toml++ node forgets its line and column.
    std::shared_ptr<const toml::table> owner;

    // lesson_loader.cpp
    void read_header(const toml::table& doc);
    void read_tokens(const toml::table& doc);
    void read_matrices(const toml::table& doc);
    void read_steps(const toml::table& doc);
    void read_token_trace(const toml::table& doc);
    void read_exercises(const toml::table& doc);

    // loader_compute.cpp
    void compute(const toml::table& doc);
    const matrix* matrix_ref(const toml::table& t, const std::string& key, bool required);
    std::vector<std::pair<const toml::node*, std::string>> references(const toml::table& t) const;

    // loader_derive.cpp: looks the op up in derive_ops() and runs it
    std::optional<matrix> derive(const toml::table& d, const std::string& name, const std::string& op);
    // loader_derive_more.cpp
    std::optional<std::size_t> count(const toml::table& d, const std::string& key);

    // loader_blocks.cpp
    bool read_block(const std::string& name, const toml::table& b);
    void register_mha(const std::string& prefix, const multi_head_steps& m, const std::vector<std::string>& qt,
                      const std::vector<std::string>& kt, const std::string& title, bool cross);
    void register_sublayer(const std::string& prefix, const sublayer_steps& s);

    // loader_runs.cpp
    bool read_run(const std::string& name, const toml::table& r);
    std::vector<std::string> token_list(const toml::table& r, const std::string& key, std::size_t n,
                                        const std::string& run);
};

// Reads one [[exercise]] table into its declaration, each problem into the
// declaration's own list (a broken exercise leaves the lesson readable).
// loader_exercise.cpp: the fields every kind shares, the parts and their points;
// loader_exercise_numbers.cpp: where its numbers come from, and the variant.
struct exercise_reader {
    toml_reader rd;
    const lesson& l;

    void read(const toml::table& t, exercise_decl& x);
    void check_id(const toml::table& t, const std::string& id);
    void read_points_and_feedback(const toml::table& t, exercise_decl& x);
    void read_part_fields(const toml::table& t, part_decl& p);  // prompt, declared mistakes
    bool read_parts(const toml::table& t, exercise_decl& x);
    void share_points(const toml::table& t, exercise_decl& x);

    const matrix* named_matrix(const toml::table& t, const std::string& key);
    setup_state read_setup(const toml::table& t, numeric_setup& s);
    bool read_student_inputs(const toml::table& t, numeric_setup& s);
    bool read_run(const toml::table& t, const std::string& run, numeric_setup& s);
    setup_state read_named_inputs(const toml::table& t, numeric_setup& s, std::size_t problems_before);
    void read_overrides(const toml::table& t, numeric_setup& s);  // q_rows, pads, causal, scale, softmax
    void keep_rows(const std::vector<std::size_t>& rows, numeric_setup& s);
    void read_extras(const toml::table& t, numeric_setup& s);  // lessons 15–19: grad, tile, rope, window
    bool read_model(const toml::table& t, numeric_setup& s);   // lessons 20–22: a trained head
    void read_variant(const toml::table& t, exercise_decl& x);
};

std::string shape_str(const matrix& m);

}  // namespace attn::lessons::detail
