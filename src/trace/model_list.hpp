// trace/model_list.hpp — what `attn model list` prints: the models built into attn
// (lessons/models/*.safetensors), each with its architecture, parameter count, how it
// was trained and the lessons that read it; a table when it fits the width, else one
// short block per model.
#pragma once

#include <string>
#include <vector>

#include "model/architecture.hpp"
#include "trace/style.hpp"

namespace attn::trace {

// One built-in model as the list shows it.
struct listed_model {
    std::string name;            // "sort": what a student types instead of a path
    model::architecture config;  // layers, heads, d_model, MLP or none
    std::string task;            // "sort" (the file's attn.task), or "" when it does not say
    std::string steps;           // "2000" (attn.steps), or ""
    std::vector<int> lessons;    // [20, 22]: the built-in lessons that read it
};

std::string render_model_list(const std::vector<listed_model>& models, const style& st);

}  // namespace attn::trace
