// lessons/trained_models.hpp — the checkpoints built into attn for lessons 20–23
// (lessons/models/NAME.safetensors, and lesson 23's NAME.gguf, a real small Llama
// trained elsewhere; embedded at build time), read once into float64
// parameters, and the few computations the lessons make with them: a forward of one
// sequence, its loss on a span of positions, a head zero-ablated. Every checkpoint was
// trained by `attn model train` with the command its lesson documents.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/traced_forward.hpp"

namespace attn::lessons {

struct trained_model {
    std::string name;                             // "sort"
    model::model_params<double> params;
    std::map<std::string, std::string> metadata;  // the file's __metadata__ (attn.task, attn.steps, …)
    std::vector<std::string> pieces;              // [vocab_size] a GGUF's tokenizer.ggml.tokens; else empty
};

// How a lesson labels token `id` of model m: its piece with SentencePiece's word mark
// ▁ dropped ("▁Once" → "Once"; a piece that is only ▁ stays), or the id itself.
std::string token_label(const trained_model& m, int id);

// The built-in checkpoint NAME (without .safetensors); throws std::invalid_argument
// naming the ones there are.
const trained_model& find_trained_model(const std::string& name);
// Their names, sorted ("induction", "sort", "sort-100", …).
std::vector<std::string> trained_model_names();

// Each model name the built-in lessons read → their numbers, in order: a lesson reads a
// model it names (`model = "sort"` in any table) and, in a head_over_steps item, that
// model's checkpoint at each step listed ("sort-100"). For `attn model list`.
std::map<std::string, std::vector<int>> lessons_by_model();

// Another built-in file of lessons/models by its whole name ("sort-losses.csv"), or nullptr.
const std::string_view* find_model_file(const std::string& name);

// The forward of one sequence [P], every hook kept.
model::forward_acts<double> forward_one(const model::model_params<double>& p, const std::vector<int>& ids);

// Mean −log p(ids[t + 1] | ids[0 … t]) over the predictions t = from − 1 … to − 2, i.e.
// of the tokens at positions from … to − 1 (1 ≤ from < to ≤ P), from the forward `a` of
// ids (or of ids without its last token, which is then a target only).
double span_loss(const model::forward_acts<double>& a, const std::vector<int>& ids, std::size_t from, std::size_t to);

// The same parameters with head `head` of layer `layer` removed (zero-ablated): its rows
// of W_O are zero, so it adds nothing to the residual stream.
model::model_params<double> without_head(const model::model_params<double>& p, std::size_t layer, std::size_t head);

}  // namespace attn::lessons
