// cli/model_budget.hpp — the model verbs' memory budget: the same run budget `attn trace`
// keeps (io/size_budget, --max-elements, default 2^28 numbers = 2 GiB as float64),
// charged with model/memory's counts before a checkpoint's parameters, a forward's
// stages or a trainer's state are allocated. A run past it is refused (exit 2) naming
// what would be held, its size, the budget and --max-elements, instead of being killed
// by the kernel after gigabytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "model/architecture.hpp"

namespace CLI {
class App;
}

namespace attn::model {
struct stage_request;  // model/traced_forward.hpp
}

namespace attn::cli {

// Adds --max-elements N to a model sub-verb (it sets the run's budget when parsed).
void add_budget_option(CLI::App& sub);

// Charges `count` numbers (nothing: past 2^64) to the run, or throws attn::error
// "too-large" at `where` (a file, or a flag such as "--batch"): "<where>: <what> would
// hold N numbers, more than the budget of M (raise it with --max-elements, …)".
void charge_numbers(std::optional<std::size_t> count, const std::string& what, const std::string& where = "");

// A checkpoint's parameters, before they are read: names the file, the parameter count
// and the largest tensor.
void charge_parameters(const model::architecture& c, const std::string& file);

// One traced forward (model::trace_stages) over B sequences of P tokens keeping the stages
// `request` asks for (model::traced_numbers: one block's buffers, the outputs, the blocks kept).
void charge_traced_forward(const model::architecture& c, std::size_t B, std::size_t P, const model::stage_request& request,
                           const std::string& where);

// `count` forwards of one sequence of P tokens held at once (model::record_run: explain,
// patch), when P fits the model (a longer input is refused by its own check).
void charge_forwards(const model::architecture& c, std::size_t count, std::size_t P, const std::string& where);

}  // namespace attn::cli
