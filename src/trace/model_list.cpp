// trace/model_list.cpp — see model_list.hpp: the built-in models as a table, or as one
// block per model on a terminal too narrow for the table.
#include "trace/model_list.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "model/params.hpp"
#include "trace/number_format.hpp"
#include "trace/text_width.hpp"

namespace attn::trace {

namespace {

std::string plural(std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// "3 layers × 3 heads, d_model 48" (", no MLP" for attention-only blocks).
std::string architecture_text(const model::architecture& c) {
    return plural(c.n_layer, "layer") + " × " + plural(c.n_head, "head") + fmt::format(", d_model {}", c.n_embd) +
           (c.has_mlp() ? "" : ", no MLP");
}

// "trained 2,000 steps on the sort task", from what the file says of itself.
std::string training_text(const listed_model& m) {
    const bool digits = !m.steps.empty() && m.steps.size() < 10 &&
                        std::all_of(m.steps.begin(), m.steps.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    const std::string steps = digits ? grouped(std::stoul(m.steps)) + " steps" : "";
    if (m.task.empty()) return steps.empty() ? "" : "trained " + steps;
    return "trained " + (steps.empty() ? "" : steps + " ") + "on the " + m.task + " task";
}

// "21", "20, 22", or "none".
std::string lessons_text(const std::vector<int>& lessons) {
    std::string out;
    for (int n : lessons) out += (out.empty() ? "" : ", ") + std::to_string(n);
    return out.empty() ? "none" : out;
}

struct list_row {
    std::string name, architecture, training, parameters, lessons;
};

// Two lines a model: name, architecture, parameters and lessons, then how it was trained.
std::string as_table(const std::vector<list_row>& rows, const std::vector<std::size_t>& w) {
    const auto line = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d) {
        std::string s = pad_right(a, w[0]) + "  " + pad_right(b, w[1]) + "  " + pad_left(c, w[2]) + "  " + d;
        return s + "\n";
    };
    std::string out = line("name", "what it is", "parameters", "lessons");
    for (const auto& r : rows) {
        out += line(r.name, r.architecture, r.parameters, r.lessons);
        if (!r.training.empty()) out += pad_right("", w[0]) + "  " + r.training + "\n";
    }
    return out;
}

// One block a model, for a narrow terminal.
std::string as_blocks(const std::vector<list_row>& rows) {
    std::string out;
    for (const auto& r : rows) {
        out += r.name + "\n  " + r.architecture + "\n";
        if (!r.training.empty()) out += "  " + r.training + "\n";
        out += "  " + r.parameters + " parameters · lessons: " + r.lessons + "\n";
    }
    return out;
}

}  // namespace

std::string render_model_list(const std::vector<listed_model>& models, const style& st) {
    std::vector<list_row> rows;
    std::size_t training_width = 0;
    std::vector<std::size_t> w = {display_width("name"), display_width("what it is"), display_width("parameters"),
                                  display_width("lessons")};
    for (const auto& m : models) {
        list_row r{m.name, architecture_text(m.config), training_text(m), grouped(model::parameter_count(m.config)),
                   lessons_text(m.lessons)};
        w[0] = std::max(w[0], display_width(r.name));
        w[1] = std::max(w[1], display_width(r.architecture));  // the training line goes below, alone
        training_width = std::max(training_width, display_width(r.training));
        w[2] = std::max(w[2], display_width(r.parameters));
        w[3] = std::max(w[3], display_width(r.lessons));
        rows.push_back(r);
    }
    // One line each, fitted below; the table fits already (else the blocks go instead).
    std::string out = "The models built into attn. Give a name wherever a checkpoint goes, from any folder: "
                      "attn model run sort --tokens 2,0,1,1,0,2 (a file of that name comes first).\n\n";
    const std::size_t table_width = std::max(w[0] + w[1] + w[2] + w[3] + 6, w[0] + 2 + training_width);
    out += table_width <= st.width ? as_table(rows, w) : as_blocks(rows);
    out += "\nOther checkpoints (GPT-2, Llama-family GGUF files, Hugging Face folders) are files you bring: "
           "attn model --help says where they come from.\n";
    return fit_lines(out, st.width);
}

}  // namespace attn::trace
