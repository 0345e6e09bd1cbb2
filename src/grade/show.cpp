// grade/show.cpp — exercise list, show (text and JSON) and answer templates.
#include "grade/show.hpp"

#include "grade/report.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>
#include <xtensor/xjson.hpp>

#include "grade/pipeline.hpp"
#include "io/terminal_safe.hpp"
#include "io/toml_words.hpp"
#include "trace/number_format.hpp"
#include "trace/style.hpp"
#include "trace/table.hpp"
#include "trace/text_width.hpp"
#include "trace/stage_words.hpp"

namespace attn::grade {

namespace sw = stage_word;

namespace {

// ", rows 'the', 'cat'" (tokens quoted) or ", column d1" (dimensions as they are).
std::string cut_list(const std::vector<std::size_t>& idx, const std::vector<std::string>& toks, const char* word,
                     const char* quote = "'") {
    if (idx.empty()) return "";
    std::string s;
    for (auto i : idx) s += (s.empty() ? "" : ", ") + (quote + (i < toks.size() ? toks[i] : std::to_string(i)) + quote);
    return std::string(", ") + word + (idx.size() > 1 ? "s " : " ") + s;
}

std::string stage_title(const exercise& x, const std::string& stage) {
    const auto& s = x.setup;
    return trace::stage_title(stage, {s.q_name, s.k_name, s.v_name, s.scale, s.softmax}).value_or(stage);
}

std::string points_words(double p) { return points_str(p) + (p == 1.0 ? " point" : " points"); }

std::string matrix_comment(const std::string& name, const matrix& m) {
    return "#   " + name + " = " + trace::bracketed_matrix(m, trace::exact_decimals(m)) + "\n";
}

}  // namespace

std::array<std::size_t, 2> part_shape(const exercise& x, const part_spec& p) {
    const auto& s = x.setup;
    if (p.stage == sw::scale()) return {1, 1};
    if (sw::is_input(p.stage)) {
        auto it = s.input_shapes.find(p.stage);
        return it == s.input_shapes.end() ? std::array<std::size_t, 2>{0, 0} : it->second;
    }
    const stage_dims d = dims_of(p.stage, s);
    const std::size_t n_rows = p.rows.empty() ? d.rows : p.rows.size();
    if (p.stage == sw::argmax()) return {n_rows, 1};
    return {n_rows, p.cols.empty() ? d.cols : p.cols.size()};
}

std::string describe_part(const exercise& x, const part_spec& p) {
    if (!x.kind->numbers) return p.prompt;
    const auto& s = x.setup;
    const stage_dims dims = dims_of(p.stage, s);
    std::string d = stage_title(x, p.stage) + cut_list(p.rows, dims.key_rows ? s.key_tokens : s.query_tokens, "row");
    if (dims.key_cols) return d + cut_list(p.cols, s.key_tokens, "column");
    const std::size_t widest = p.cols.empty() ? 0 : *std::max_element(p.cols.begin(), p.cols.end()) + 1;
    return d + cut_list(p.cols, trace::dimension_labels(widest), "column", "");
}

std::string list_text(const exercise_set& set) {
    std::string out;
    std::size_t w = 2;
    for (const auto& x : set.all) w = std::max(w, x.id.size());
    int lesson = -1;
    for (const auto& x : set.all) {
        if (x.lesson != lesson) {
            lesson = x.lesson;
            out += fmt::format("{}Lesson {:02d} — {}\n", out.empty() ? "" : "\n", x.lesson, x.lesson_title);
        }
        const std::string title = x.title.empty() ? x.prompt.substr(0, x.prompt.find('\n')) : x.title;
        out += fmt::format("  {:<{}}  {:<7}  {:>3}  {}{}\n", x.id, w, x.kind->name, points_str(x.points), title,
                           x.variant.enabled ? "  (numbers per student)" : "");
    }
    if (out.empty()) out = "no exercises in the lessons\n";
    return out;
}

namespace {

// The hand-out's numbers: who they are for, the input tables, the mask, bias, scale and
// the lessons 15–19 extras.
std::string numbers_text(const exercise& x, const exercise_numbers& n, const trace::style& st) {
    const auto& s = x.setup;
    trace::style plain = st;  // its width and --full, never colour
    plain.color = false;
    std::string out;
    if (n.personal && n.student.empty())  // --seed: the teacher regenerating a variant
        out += fmt::format("\nNumbers from seed {:#018x} ({}):\n", n.seed, n.parameters);
    else if (n.personal)
        out += "\nYour numbers (student " + io::terminal_safe(n.student) + ", variant " + n.code + ", " + n.parameters + "):\n";
    else if (n.practice)
        out += "\nPRACTICE numbers (" + n.parameters + "): the same for everyone, for self-study; "
               "not any class's numbers. Check your answers with `attn exercise check ANSWERS`.\n";
    else
        out += "\nNumbers: " + n.parameters + (x.variant.enabled ? " (give --student to get your own)" : "") + "\n";
    // A table of numbers: rows named by tokens (or their index), columns by keys or dimensions.
    auto table = [&](const std::string& name, const matrix& m, const std::vector<std::string>& rows, const std::string& side,
                     const std::string& corner, const std::vector<std::string>* keys = nullptr) {
        const std::string axes = keys ? "" : "rows: " + side + " · columns: dimensions";
        const auto cols = keys ? trace::labels_or_index(*keys, m.shape(1)) : trace::dimension_labels(m.shape(1));
        out += "\n" + trace::render(trace::make_table(name, axes, corner, trace::labels_or_index(rows, m.shape(0)), cols, m,
                                                      trace::exact_decimals(m)),
                                    plain);
    };
    if (s.model) out += "\n" + lessons::model_numbers_words(*s.model, n.inputs.model_tokens) + "\n";  // lessons 20–22
    table(s.q_name, n.inputs.q, n.query_tokens, s.query_side, s.q_name);
    table(s.k_name, n.inputs.k, n.key_tokens, s.key_side, s.k_name);
    table(s.v_name, n.inputs.v, n.key_tokens, s.key_side, s.v_name);
    if (n.inputs.encoder_q)
        table("Q_enc, the encoder's own queries (for reference)", *n.inputs.encoder_q, n.key_tokens, "encoder tokens", "Q_enc");
    if (n.inputs.grad_output)
        table("dL/dO, the gradient arriving at the output", *n.inputs.grad_output, n.query_tokens, s.query_side, "dO");
    if (s.tile) out += "\nOnline softmax: " + std::to_string(*s.tile) + " keys per block, left to right.\n";
    if (s.rope_base)
        out += "\nRotary positions: base " + trace::compact(*s.rope_base) +
               ", positions 0, 1, …; pair i = (d2i, d2i+1) turns by position · base^(−2i/d_k).\n";
    if (s.window)
        out += "\nWindow: query i sees the keys j with |i − j| ≤ " + std::to_string(*s.window) +
               (s.window_causal ? " and j ≤ i" : "") + " (in the mask below).\n";
    if (n.inputs.mask) {
        out += "\nMask (rows: queries, columns: keys; 1 = may attend, 0 = blocked):\n";
        for (std::size_t i = 0; i < n.inputs.mask->shape(0); ++i) {
            out += "  " + trace::pad_right(i < n.query_tokens.size() ? n.query_tokens[i] : std::to_string(i), 8);
            for (std::size_t j = 0; j < n.inputs.mask->shape(1); ++j) out += (*n.inputs.mask)(i, j) ? " 1" : " 0";
            out += "\n";
        }
    }
    if (n.inputs.bias) table("Bias added to the scaled scores", *n.inputs.bias, n.query_tokens, "", "", &n.key_tokens);
    // An exercise that asks for the scale must not print it in its own hand-out.
    const std::size_t d_k = n.inputs.q.shape(1);
    const std::string scale =
        std::any_of(x.parts.begin(), x.parts.end(), [](const part_spec& p) { return p.stage == sw::scale(); })
            ? "what the raw scores are divided by is one of the parts below"
        : s.scale ? "divide the raw scores by " + trace::compact(*s.scale)
                  : "divide the raw scores by √d_k = √" + std::to_string(d_k) + " = " + trace::compact(std::sqrt(double(d_k)));
    out += "\nScale: " + scale + (s.softmax ? "" : "; no softmax") + ".\n";
    return out;
}

}  // namespace

std::string show_text(const exercise& x, const variant_request& request, const trace::style& st) {
    std::string out = fmt::format("{} — {} (lesson {:02d}, {}, {})\n", x.id, x.title.empty() ? x.lesson_title : x.title,
                                  x.lesson, x.kind->name, points_words(x.points));
    out += "\n" + x.prompt + "\n";
    if (x.kind->numbers && x.setup.student_inputs) {
        out += "\nYou choose the numbers of " + x.setup.q_name + ", " + x.setup.k_name + " and " + x.setup.v_name +
               "; every later part is checked against your own choice.\n";
    } else if (x.kind->numbers) {
        out += numbers_text(x, numbers_for(x, request), st);
    } else if (x.kind->input_words) {  // lessons 24–26: the student's own model input
        out += "\n" + x.kind->input_words(x, request);
    } else if (!x.choices.empty()) {
        out += "\nChoices: " + lettered_choices(x) + "\n";
        if (x.kind->select_all)
            out += "Select all that apply: answer with a list ([\"a\", \"c\"]); right only with every right choice and no other.\n";
    }
    if (x.kind->reviewed)
        out += "\nFor your teacher: your text is read and marked by hand (0 points until it is reviewed).\n";
    out += "\nParts (answer file: [" + x.id + "] then one key per part):\n";
    for (const auto& p : x.parts) {
        std::string line = "  " + trace::pad_right(p.id, 10) + " ";
        if (x.kind->numbers) {
            const auto sh = part_shape(x, p);
            line += describe_part(x, p) + " — " + std::to_string(sh[0]) + " × " + std::to_string(sh[1]) + ", " +
                    points_words(p.points) +
                    (p.stage == sw::argmax() || sw::is_input(p.stage) ? "" : ", " + p.tol.str());
        } else {
            line += (p.prompt.empty() ? std::string(x.kind->name) : p.prompt) + " — " + points_words(p.points);
        }
        out += line + "\n";
    }
    return out;
}

namespace {

// The numbers of a numeric exercise for show --format json: inputs, tokens, mask.
nlohmann::json inputs_json(const exercise& x, const exercise_numbers& n) {
    const auto& s = x.setup;
    nlohmann::json in{{"attention", s.run_kind},
                      {"student_inputs", s.student_inputs},
                      {"softmax", s.softmax},
                      {sw::scale(), s.scale ? nlohmann::json(*s.scale) : nlohmann::json(nullptr)},
                      {"query_tokens", n.query_tokens},
                      {"key_tokens", n.key_tokens},
                      {"names", {s.q_name, s.k_name, s.v_name}}};
    if (s.student_inputs) {
        for (const auto& [role, sh] : s.input_shapes) in["shapes"][role] = sh;
    } else {
        // A matrix or a mask as rows of numbers or of true/false (xtensor's own JSON form).
        in[sw::q()] = n.inputs.q;
        in[sw::k()] = n.inputs.k;
        in[sw::v()] = n.inputs.v;
        in["encoder_q"] = n.inputs.encoder_q ? nlohmann::json(*n.inputs.encoder_q) : nlohmann::json(nullptr);
        in["bias"] = n.inputs.bias ? nlohmann::json(*n.inputs.bias) : nlohmann::json(nullptr);
        if (n.inputs.grad_output) in["grad"] = *n.inputs.grad_output;  // lessons 15–19
        if (s.tile) in["tile"] = *s.tile;
        if (s.rope_base) in["rope"] = *s.rope_base;
        if (s.window) in["window"] = *s.window;
        if (s.model)  // lessons 20–22: the model's input, and which head (from 0, as the checkpoint)
            in["model"] = {{"name", s.model->model}, {"tokens", n.inputs.model_tokens}, {"layer", s.model->layer}, {"head", s.model->head}};
        in["mask_attend"] = n.inputs.mask ? nlohmann::json(*n.inputs.mask) : nlohmann::json(nullptr);
    }
    return in;
}

}  // namespace

nlohmann::json show_json(const exercise& x, const variant_request& request) {
    nlohmann::json j{{"id", x.id},
                     {"lesson", x.lesson},
                     {"kind", x.kind->name},
                     {"title", x.title},
                     {"prompt", x.prompt},
                     {"points", x.points}};
    if (!x.choices.empty()) j["choices"] = x.choices;
    if (x.kind->select_all) j["select_all"] = true;      // the answer is a list of choices
    if (x.kind->reviewed) j["reviewed_by_teacher"] = true;  // 0 points until reviewed
    if (x.kind->numbers) {
        const exercise_numbers n = numbers_for(x, request);
        j["student"] = n.student;
        j["numbers"] = {{"personal", n.personal}, {"practice", n.practice}, {"parameters", n.parameters}};
        if (!n.code.empty()) j["numbers"]["variant"] = n.code;
        j["numbers"]["redraws"] = n.redraws;  // draws rejected because a mistake gave the right answer (see variant_check.hpp)
        if (x.variant.enabled)  // how per-student numbers are drawn (the recipe is in variant.hpp)
            j["variant"] = {{"vary", x.variant.vary},
                            {"values", x.variant.values},
                            {"range", {x.variant.lo, x.variant.hi}},
                            {"tie", x.variant.tie}};
        j["inputs"] = inputs_json(x, n);
    } else if (x.kind->input_words) {  // lessons 24–26: the drawn model input alone
        const exercise_numbers n = numbers_for(x, request);
        j["student"] = n.student;
        j["numbers"] = {{"personal", n.personal}, {"practice", n.practice}, {"parameters", n.parameters}};
        if (!n.code.empty()) j["numbers"]["variant"] = n.code;
        j["numbers"]["redraws"] = n.redraws;
        j["inputs"] = {{"model", {{"name", x.setup.model->model}, {"tokens", n.inputs.model_tokens},
                                  {"layer", x.setup.model->layer}, {"head", x.setup.model->head}}}};
    }
    j["parts"] = nlohmann::json::array();
    for (const auto& p : x.parts) {
        nlohmann::json pj{{"id", p.id}, {"points", p.points}, {"prompt", p.prompt}};
        if (x.kind->numbers)
            pj.update({{"stage", p.stage}, {"rows", p.rows}, {"cols", p.cols}, {"shape", part_shape(x, p)},
                       {"rtol", p.tol.rtol}, {"atol", p.tol.atol}, {"describe", describe_part(x, p)}});
        j["parts"].push_back(pj);
    }
    return j;
}

std::string template_toml(const std::vector<const exercise*>& xs, const variant_request& request) {
    const std::string student = normalize_student_id(request.student);
    const bool practice = request.secret.empty() || student.empty();
    std::string out = "# attn answer file — replace every \"TODO: …\" with your answer, then run\n" +
                      std::string(practice ? "#   attn exercise check THIS_FILE      (practice numbers: checked at once)\n"
                                           : "#   and hand it in as your teacher says.\n") +
                      "# Numbers may be written as 0.25 or 1e-3; a matrix as [[row], [row], ...].\n";
    out += "student = " + io::toml_quoted(student) + "\n";
    for (const exercise* x : xs) {
        out += "\n# ── " + x->id + ": " + (x->title.empty() ? x->lesson_title : x->title) + " (" + points_words(x->points) + ") ──\n";
        std::istringstream prompt(x->prompt);
        for (std::string line; std::getline(prompt, line);) out += "# " + line + "\n";
        if (x->kind->numbers && !x->setup.student_inputs) {
            const exercise_numbers n = numbers_for(*x, request);
            out += "# " + std::string(n.personal ? "Your numbers (variant " + n.code + ", " + n.parameters + "):"
                                      : n.practice ? "PRACTICE numbers (" + n.parameters + "; not any class's numbers):"
                                                   : "Numbers: " + n.parameters + ":") + "\n";
            if (x->setup.model) out += "# " + lessons::model_numbers_words(*x->setup.model, n.inputs.model_tokens) + "\n";  // lessons 20–22
            out += matrix_comment(x->setup.q_name, n.inputs.q);
            out += matrix_comment(x->setup.k_name, n.inputs.k);
            out += matrix_comment(x->setup.v_name, n.inputs.v);
            if (n.inputs.encoder_q) out += matrix_comment("Q_enc (the encoder's own queries, for reference)", *n.inputs.encoder_q);
            if (n.inputs.grad_output) out += matrix_comment("dO (dL/dO, the gradient arriving at the output)", *n.inputs.grad_output);
        }
        if (x->kind->input_words) {  // lessons 24–26: the student's own model input
            std::istringstream words(x->kind->input_words(*x, request));
            for (std::string line; std::getline(words, line);) out += "# " + line + "\n";
        }
        if (!x->choices.empty()) {
            out += "# Choices: " + lettered_choices(*x) + "\n";
            if (x->kind->select_all) out += "# Select all that apply: a list such as [\"a\", \"c\"].\n";
        }
        if (x->kind->reviewed) out += "# For your teacher: read and marked by hand (0 points until reviewed).\n";
        out += "[" + x->id + "]\n";
        for (const auto& p : x->parts) {
            std::string what = x->kind->numbers ? describe_part(*x, p) : p.prompt;
            if (!what.empty()) out += "# " + what + " (" + points_words(p.points) + ")\n";
            out += p.id + " = " + io::toml_quoted(x->kind->placeholder(*x, p)) + "\n";
        }
    }
    return out;
}

std::string template_json(const std::vector<const exercise*>& xs, const variant_request& request) {
    nlohmann::ordered_json j;
    j["student"] = normalize_student_id(request.student);
    for (const exercise* x : xs) {
        nlohmann::ordered_json parts;
        for (const auto& p : x->parts) parts[p.id] = x->kind->placeholder(*x, p);
        j[x->id] = parts;
    }
    return j.dump(2) + "\n";
}

}  // namespace attn::grade
