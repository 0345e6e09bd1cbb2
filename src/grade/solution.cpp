// grade/solution.cpp — see solution.hpp. The numbers come from the grader's own
// pipeline (compute_correct, select_stage), so the solution shown is the answer graded.
#include "grade/solution.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "grade/kinds/kind.hpp"
#include "grade/pipeline.hpp"
#include "grade/show.hpp"
#include "trace/number_format.hpp"
#include "trace/stage_words.hpp"

namespace attn::grade {

namespace sw = trace::stage_word;

namespace {

std::string token_or_index(const std::vector<std::string>& tokens, std::size_t i) {
    return i < tokens.size() ? tokens[i] : std::to_string(i);
}

// One line per asked row: "      cat  [0.1234, 0.5678]".
std::string rows_text(const matrix& m, const std::vector<std::size_t>& rows, const std::vector<std::string>& tokens) {
    std::string out;
    for (std::size_t r = 0; r < m.shape(0); ++r) {
        const std::string label = r < rows.size() ? token_or_index(tokens, rows[r]) : std::to_string(r);
        out += fmt::format("      {:<6} {}\n", label, trace::bracketed_row(m, r, 4));
    }
    return out;
}

// What each attention pass does, in the words of the lessons.
std::string pass_words(const std::string& stage, const stage_values& s, const pipeline_inputs& in) {
    if (stage == sw::raw()) return "raw scores = Q · Kᵀ (the query row times each key row)";
    if (stage == sw::scaled()) return "scaled = raw ÷ " + trace::compact(s.scale, 4);
    if (stage == sw::masked()) return "masked = scaled + bias, −inf where a key is blocked";
    if (stage == sw::weights())
        return in.softmax ? "weights = softmax of each row (exp of each entry ÷ the row's sum of exps)"
                          : "weights = the scaled scores themselves (this exercise has no softmax)";
    if (stage == sw::output()) return "output = weights · V (the weighted average of the value rows)";
    return stage;
}

// The passes up to the asked one, each on the asked rows (all keys), the asked one cut to its columns.
// Passes already printed for the same rows (an earlier part) are not repeated.
std::string stage_chain(const part_spec& p, const stage_values& right, const exercise_numbers& n, std::vector<std::string>& shown) {
    static const std::vector<std::string> order{sw::raw(), sw::scaled(), sw::masked(), sw::weights(), sw::output()};
    const bool has_mask = n.inputs.mask.has_value() || n.inputs.bias.has_value();
    const auto rows = all_or(p.rows, right.raw.shape(0));
    std::string out;
    for (const auto& stage : order) {
        if (stage == sw::masked() && !has_mask && p.stage != sw::masked()) continue;
        const bool asked = stage == p.stage;
        if (!asked && std::find(shown.begin(), shown.end(), stage) != shown.end()) continue;
        const auto m = select_stage(right, stage, p.rows, asked ? p.cols : std::vector<std::size_t>{});
        if (!m) break;
        out += "    " + std::string(asked ? "the answer: " : "") + pass_words(stage, right, n.inputs) + "\n";
        out += rows_text(*m, rows, n.query_tokens);
        if (p.cols.empty()) shown.push_back(stage);
        if (asked) break;
    }
    return out;
}

std::string numeric_part(const part_spec& p, const stage_values& right, const exercise_numbers& n,
                         std::vector<std::string>& shown) {
    if (sw::is_input(p.stage))
        return "    any matrix of the asked shape: the later parts are checked against your own choice\n";
    if (p.stage == sw::scale()) return "    the answer: the scale, √d_k = " + trace::compact(right.scale, 4) + "\n";
    if (p.stage == sw::argmax()) {
        std::string out;
        for (std::size_t r : all_or(p.rows, right.weights.shape(0))) {
            std::size_t best = 0;
            for (std::size_t j = 1; j < right.weights.shape(1); ++j)
                if (right.weights(r, j) > right.weights(r, best)) best = j;
            out += fmt::format("    {}: the largest weight is at key {} ({})\n", token_or_index(n.query_tokens, r),
                               token_or_index(n.key_tokens, best), trace::fixed(right.weights(r, best), 4));
        }
        return out;
    }
    static const std::vector<std::string> chained{sw::raw(), sw::scaled(), sw::masked(), sw::weights(), sw::output()};
    for (const auto& c : chained)
        if (c == p.stage) return stage_chain(p, right, n, shown);
    const auto m = select_stage(right, p.stage, p.rows, p.cols);  // the stages of lessons 15–19
    if (!m) return "    (this part cannot be computed; tell your teacher)\n";
    return rows_text(*m, all_or(p.rows, m->shape(0)), n.query_tokens);
}

}  // namespace

std::string numeric_solution(const exercise& x, const variant_request& request) {
    const exercise_numbers n = numbers_for(x, request);
    if (x.setup.student_inputs)
        return "  You choose Q, K and V yourself; each later part is Q, K, V carried through the passes:\n"
               "  raw = Q · Kᵀ, scaled = raw ÷ √d_k, weights = softmax of each row, output = weights · V.\n";
    const stage_values right = compute_correct(n.inputs);
    std::string out;
    std::vector<std::string> shown;  // stages printed for the rows of the previous part
    std::vector<std::size_t> shown_rows;
    for (const auto& p : x.parts) {
        if (p.rows != shown_rows) shown.clear();
        shown_rows = p.rows;
        out += "  " + p.id + ": " + describe_part(x, p) + "\n";
        out += numeric_part(p, right, n, shown);
    }
    return out;
}

std::string worked_solution(const exercise& x, const variant_request& request) { return x.kind->solve(x, request); }

}  // namespace attn::grade
