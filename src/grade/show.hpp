// grade/show.hpp — what a student is handed: an exercise with their numbers
// (`attn exercise show`), an answer file to fill in (`attn exercise template`),
// and the list of exercises (`attn exercise list`).
#pragma once

#include "trace/style.hpp"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grade/exercise.hpp"
#include "grade/variant.hpp"

namespace attn::grade {

std::string list_text(const exercise_set& set);

// The exercise with this request's numbers: prompt, input tables, parts with their
// expected shapes, points and tolerances. Never the answers.
// st: the width its tables fit and whether long ones are shown whole (--full); never coloured.
std::string show_text(const exercise& x, const variant_request& request, const trace::style& st = {});
nlohmann::json show_json(const exercise& x, const variant_request& request);

// An answer file for these exercises: every part a "TODO: …" placeholder saying what
// to write; the student's numbers as comments (TOML) so the file is self-contained.
std::string template_toml(const std::vector<const exercise*>& xs, const variant_request& request);
std::string template_json(const std::vector<const exercise*>& xs, const variant_request& request);

// "raw scores Q Kᵀ, row 'cat'" — what a numeric part asks for.
std::string describe_part(const exercise& x, const part_spec& p);
// The [rows, cols] of a numeric part's answer (argmax: [rows, 1]).
std::array<std::size_t, 2> part_shape(const exercise& x, const part_spec& p);

}  // namespace attn::grade
