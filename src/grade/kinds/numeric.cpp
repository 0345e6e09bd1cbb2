// grade/kinds/numeric.cpp — the numeric kind: parts are stages of an attention
// computation (raw, scaled, masked, weights, output, scale, argmax, the inputs q/k/v
// when the student chooses them, and lessons 15–19's stages) on the numbers of a lesson
// run, optionally varied per student. Its parts depend on each other (a wrong raw score
// carries into the weights), so they are graded together (grade_numeric.cpp).
#include <algorithm>

#include <fmt/format.h>

#include "grade/grader.hpp"
#include "grade/kinds/kind.hpp"
#include "io/typed_line.hpp"
#include "grade/pipeline.hpp"
#include "grade/show.hpp"
#include "io/toml_read.hpp"
#include "trace/number_format.hpp"
#include "core/stages.hpp"

namespace attn::grade {

namespace sw = stage_word;

namespace {

void check_stage(const io::toml_reader& rd, const toml::table& t, const exercise& x, const part_spec& p) {
    bool known = false;
    for (const auto& s : numeric_stage_names()) known = known || s == p.stage;
    if (!p.stage.empty() && !known) {
        std::string names;
        for (const auto& s : numeric_stage_names()) names += (names.empty() ? "" : ", ") + s;
        rd.fail(t.get("stage"), "unknown stage '" + p.stage + "' (expected one of " + names + ")");
    }
    if (sw::is_input(p.stage) && !x.setup.student_inputs)
        rd.fail(t.get("stage"), "stages q, k, v are answers only when student_inputs = true");
}

void read_part(const io::toml_reader& rd, const exercise& x, part_spec& p) {
    const toml::table& t = *p.spec;
    p.stage = rd.string(t, "stage", true).value_or("");
    check_stage(rd, t, x, p);
    const stage_dims d = dims_of(p.stage, x.setup);
    if (d.cols == 0) rd.fail(t.get("stage"), "stage '" + p.stage + "' needs 'tile' on the exercise");
    const auto traced = parse_stage(p.stage);  // what the tracer's vocabulary says the stage needs
    const auto needs = traced ? stage_info_of(*traced).needs : stage_needs::nothing;
    if ((needs == stage_needs::backward && !x.setup.grad_output) || (needs == stage_needs::rope && !x.setup.rope_base))
        rd.fail(t.get("stage"), "stage '" + p.stage + "' needs '" + (needs == stage_needs::backward ? "grad" : "rope") +
                                      "' on the exercise");
    p.rows = rd.indices(t, "rows", d.rows, d.key_rows ? x.setup.key_tokens : x.setup.query_tokens)
                 .value_or(std::vector<std::size_t>{});
    const std::vector<std::string> no_tokens;  // columns of dimensions or blocks are named by their index
    p.cols = rd.indices(t, "cols", std::max<std::size_t>(d.cols, 1), d.key_cols ? x.setup.key_tokens : no_tokens)
                 .value_or(std::vector<std::size_t>{});
    p.tol = lessons::read_tolerance(rd, t, x.tol);
}

bool read_mistake(const io::toml_reader& rd, const exercise&, declared_mistake& m) {
    m.answer = rd.string(*m.spec, "answer", true).value_or("");
    return true;
}

void grade(const exercise& x, const io::value_node* answer, const kind_grading& g, exercise_result& r) {
    const exercise_numbers n = numbers_for(x, g.request);
    take_variant(n, r);
    r.parts = grade_numeric_parts(x, n, answer);
    bool other = false;
    for (const auto& p : r.parts) other = other || p.other_numbers;
    if (other)
        g.flags.push_back(x.id + ": the answers follow from each other but not from this student's numbers "
                                 "(someone else's numbers?)");
}

// ── the worked solution, from the grader's own pipeline (compute_correct,
// select_stage): the solution shown is the answer graded ──

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
    const bool has_mask = n.inputs.mask.has_value() || n.inputs.bias.has_value();
    const auto rows = all_or(p.rows, right.scores_raw.shape(0));
    std::string out;
    for (const auto& stage : chain_stages()) {
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
            const std::size_t best = row_argmax(right.weights, r);
            out += fmt::format("    {}: the largest weight is at key {} ({})\n", token_or_index(n.query_tokens, r),
                               token_or_index(n.key_tokens, best), trace::fixed(right.weights(r, best), 4));
        }
        return out;
    }
    if (std::count(chain_stages().begin(), chain_stages().end(), p.stage)) return stage_chain(p, right, n, shown);
    const auto m = select_stage(right, p.stage, p.rows, p.cols);  // the stages of lessons 15–19
    if (!m) return "    (this part cannot be computed; tell your teacher)\n";
    return rows_text(*m, all_or(p.rows, m->shape(0)), n.query_tokens);
}

std::string solve(const exercise& x, const variant_request& request) {
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

std::string placeholder(const exercise& x, const part_spec& p) {
    const auto sh = part_shape(x, p);
    if (p.stage == sw::argmax()) return "TODO: " + std::to_string(sh[0]) + " key index(es) or token(s), e.g. [0]";
    std::string row = "[";
    for (std::size_t j = 0; j < sh[1]; ++j) row += std::string(j ? ", " : "") + "0.0";
    row += "]";
    if (sh[0] == 1 && sh[1] == 1) return "TODO: one number, e.g. 0.0";
    if (sh[0] == 1) return "TODO: " + std::to_string(sh[1]) + " numbers, e.g. " + row;
    return "TODO: " + std::to_string(sh[0]) + " × " + std::to_string(sh[1]) + " numbers, e.g. [" + row + ", ...]";
}

}  // namespace

const exercise_kind numeric_kind{
    "numeric",
    "a part is a stage of the attention computation (raw, scaled, masked, weights, output, …) on the numbers of a "
    "lesson run, optionally drawn per student",
    true, false, false, false,
    read_part, read_mistake, grade, placeholder, solve,
    "Type numbers on one line: one number (2), a row (0.1 0.2 0.3), rows split by ; "
    "(0.1 0.2; 0.3 0.4) or a TOML array ([[0.1, 0.2], [0.3, 0.4]]); a key can be typed as its token (cat).",
    io::typed_numbers,
    nullptr, nullptr,
};

}  // namespace attn::grade
