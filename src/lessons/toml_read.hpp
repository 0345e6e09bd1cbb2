// lessons/toml_read.hpp — small checked readers over toml++ nodes that record a
// diagnostic (file:line:col, expected, found) instead of throwing, so a lesson
// check reports every problem in one go. Shared by the lesson loader and the grader.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "core/types.hpp"
#include "lessons/lesson.hpp"

namespace attn::lessons {

struct toml_reader {
    std::string file;
    std::vector<diagnostic>* problems;

    source_pos pos(const toml::node* node) const;
    void fail(const toml::node* node, const std::string& message) const;
    // "a string", "an array", ... for "expected X, found Y" messages.
    static std::string type_name(const toml::node* node);

    std::optional<std::string> string(const toml::table& t, const std::string& key, bool required) const;
    std::optional<double> number(const toml::table& t, const std::string& key, bool required) const;
    std::optional<bool> boolean(const toml::table& t, const std::string& key, bool required) const;
    std::optional<std::vector<std::string>> strings(const toml::table& t, const std::string& key, bool required) const;
    std::optional<std::vector<double>> numbers(const toml::node* node, const std::string& what) const;
    // An array of equal-length arrays of numbers (or one flat array as a 1-row matrix).
    std::optional<matrix> matrix_value(const toml::node* node, const std::string& what) const;
    // Like matrix_value but for masks: entries true/false or 1/0 under a key naming the polarity.
    std::optional<bool_matrix> bool_matrix_value(const toml::node* node, const std::string& what) const;
};

}  // namespace attn::lessons
