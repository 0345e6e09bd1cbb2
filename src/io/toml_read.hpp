// io/toml_read.hpp — the one family of typed TOML readers, the one unknown-key check
// and the one node → file:line:col helper, for every TOML file attn reads: spec files
// (io/trace_spec_*), lessons and exercises (src/lessons), assignments and answers
// (src/grade), the progress file. Every problem names the place (file:line:col), what
// was expected and what was found, in one wording:
//   "'heads' must be a whole number from 1 to 64, found a string"
//   "unknown key 'stgae' in a [[step]] (did you mean 'stage'? known keys: title, text)"
//
// Two modes, one code path:
//   toml_reader rd{path};                  // first problem throws io::input_error
//   toml_reader rd{path, &problems};       // every problem recorded, reader returns nullopt
// A lesson check uses the second so it reports all problems in one go; a spec file or an
// assignment uses the first. In throw mode a reader returns nullopt only for an absent
// key that was not required.
//
//   const toml::table doc = io::parse_toml(text, path);     // io/toml_parse.hpp
//   io::toml_reader rd{path};
//   rd.known_keys(doc, "the assignment", {"title", "exercise"});
//   std::string title = rd.string(doc, "title", true).value();
//   auto heads = rd.integer(doc, "heads", false, 1, 64);    // bounds in the message
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "core/types.hpp"
#include "io/input_error.hpp"

namespace attn::io {

// The one node → position helper: line/column from toml++, line 0 (the file as a whole)
// when the node is null or has no recorded place.
source_pos toml_pos(const std::string& file, const toml::node* node);
source_pos toml_pos(const std::string& file, const toml::key& key);

// A TOML number (the node must be one) as a double: a float as it is, an integer of any
// size rounded to the nearest double. toml++'s value<double>() gives nothing for an
// integer beyond 2^53, and dereferencing that read 9223372036854775807 as 0.
double toml_number(const toml::node& n);

// One problem found in a TOML file.
struct toml_problem {
    source_pos where;
    std::string message;  // what was expected, what was found
    std::string str() const { return where.str() + ": " + message; }
};

struct toml_reader {
    std::string file;
    std::vector<toml_problem>* problems = nullptr;  // null: throw at the first problem

    source_pos pos(const toml::node* node) const { return toml_pos(file, node); }
    // Records the problem, or throws input_error (reason "invalid") in throw mode.
    void fail(const toml::node* node, const std::string& message) const;
    void fail_at(const source_pos& where, const std::string& message) const;
    // "a string", "an array", ... for "expected X, found Y" messages (io/toml_words).
    static std::string type_name(const toml::node* node);

    std::optional<std::string> string(const toml::table& t, const std::string& key, bool required) const;
    // A finite number (integer or float).
    std::optional<double> number(const toml::table& t, const std::string& key, bool required) const;
    // A whole number (a TOML integer, or a float with no fraction) within [lo, hi].
    std::optional<std::int64_t> integer(const toml::table& t, const std::string& key, bool required, std::int64_t lo,
                                        std::int64_t hi) const;
    std::optional<bool> boolean(const toml::table& t, const std::string& key, bool required) const;
    // A string that must be one of `allowed` ("'kind' must be one of self, causal, cross, found \"x\"").
    std::optional<std::string> choice(const toml::table& t, const std::string& key, bool required,
                                      const std::vector<std::string>& allowed) const;
    std::optional<std::vector<std::string>> strings(const toml::table& t, const std::string& key, bool required) const;
    std::optional<std::vector<double>> numbers(const toml::node* node, const std::string& what) const;
    // 0-based indices below n, each a number or one of `names` (a token: "cat"); an absent
    // key is an empty list (nothing picked), a problem is nullopt.
    std::optional<std::vector<std::size_t>> indices(const toml::table& t, const std::string& key, std::size_t n,
                                                    const std::vector<std::string>& names) const;
    // An array of equal-length arrays of numbers (or one flat array as a 1-row matrix).
    std::optional<matrix> matrix_value(const toml::node* node, const std::string& what) const;
    // Like matrix_value but for masks: entries true/false or 1/0 under a key naming the polarity.
    std::optional<bool_matrix> bool_matrix_value(const toml::node* node, const std::string& what) const;
    // The tables of an array of tables ([[step]]): a node that is not an array is reported
    // with `not_array`, each element that is not a table with `not_table` (and skipped).
    std::vector<const toml::table*> tables(const toml::node* node, const std::string& not_array,
                                           const std::string& not_table) const;

    // The one unknown-key check: one problem per key of `t` not in `known`, at the key:
    // "unknown key 'stgae' in <where> (did you mean 'stage'? known keys: ...)".
    void known_keys(const toml::table& t, const std::string& where, const std::vector<std::string>& known) const;
};

// Edit distance (insertions, deletions, substitutions, adjacent swaps).
std::size_t edit_distance(const std::string& a, const std::string& b);
// The known word closest to `found`, or "" when none is close enough to be a typo.
std::string closest_word(const std::string& found, const std::vector<std::string>& known);
// "did you mean 'stage'? " or "" — the start of a hint for messages.
std::string did_you_mean(const std::string& found, const std::vector<std::string>& known);
// " (did you mean 'stage'?)" or "" — the end of a message.
std::string hint_suffix(const std::string& found, const std::vector<std::string>& known);

}  // namespace attn::io
