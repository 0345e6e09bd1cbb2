// lessons/loader_internal.hpp — the loader's working state, shared by the files
// that read each part of a lesson (lesson_loader.cpp: header, tokens, matrices,
// steps; loader_compute.cpp: [derived] and [runs] in dependency order;
// loader_derive.cpp: the derived-matrix ops; loader_runs.cpp: attention runs).
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
#include "lessons/toml_read.hpp"

namespace attn::lessons::detail {

// The keys that name a matrix (or a run's stage, "run.weights") in [derived] and [runs].
const std::vector<std::string>& reference_keys();

// The ops of [derived.X] and the keys each accepts ("op" included).
struct derive_op {
    std::string name;
    std::vector<std::string> keys;
    std::string what;  // one line for messages and the teachers' guide
};
const std::vector<derive_op>& derive_ops();

// The kinds of [blocks.X] and the keys each accepts ("kind" included).
struct block_kind {
    std::string name;
    std::vector<std::string> keys;
    std::string what;
};
const std::vector<block_kind>& block_kinds();

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

    // loader_derive.cpp
    std::optional<matrix> derive(const toml::table& d, const std::string& name, const std::string& op);
    // loader_derive_more.cpp: the ops that call the core's building blocks
    std::optional<matrix> derive_more(const toml::table& d, const std::string& name, const std::string& op);
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

std::string shape_str(const matrix& m);

}  // namespace attn::lessons::detail
