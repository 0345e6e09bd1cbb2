// cli/model_budget.cpp — the model verbs' memory budget (see model_budget.hpp).
#include "cli/model_budget.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "io/size_budget.hpp"
#include "model/memory.hpp"
#include "model/params.hpp"
#include "model/traced_forward.hpp"

namespace attn::cli {

void add_budget_option(CLI::App& sub) {
    sub.add_option_function<std::size_t>(
           "--max-elements", [](const std::size_t& n) { io::set_max_elements(n); },
           fmt::format("Refuse a run that would hold more than N numbers: parameters, stages, optimizer state "
                       "(default {}: 2 GiB as float64)",
                       io::default_max_elements))
        ->check(CLI::PositiveNumber);
}

void charge_numbers(std::optional<std::size_t> count, const std::string& what, const std::string& where) {
    io::charge_budget(count, what, where.empty() ? source_pos{} : source_pos{where});
}

void charge_parameters(const model::architecture& c, const std::string& file) {
    const std::size_t n = model::parameter_count(c);
    charge_numbers(n, fmt::format("its {} parameters (the largest tensor: {})", n, model::largest_parameter(c)), file);
}

void charge_traced_forward(const model::architecture& c, std::size_t B, std::size_t P, const model::stage_request& request,
                           const std::string& where) {
    std::size_t kept = 0;
    for (std::size_t l = 0; l < c.n_layer; ++l) kept += request.keeps_block(l);
    const std::string blocks = kept == c.n_layer ? "every layer's stages" : kept == 0 ? "the predictions"
                             : kept == 1 ? "one layer's stages" : fmt::format("{} layers' stages", kept);
    charge_numbers(model::traced_numbers(c, B, P, request),
                   fmt::format("the forward's stages ({} sequence{} × {} tokens; {} kept{}; {} heads × {} × {} scores a layer)", B,
                               B == 1 ? "" : "s", P, blocks, request.every_pattern ? ", every layer's pattern" : "", c.n_head, P, P),
                   where);
}

void charge_forwards(const model::architecture& c, std::size_t count, std::size_t P, const std::string& where) {
    if (P > c.n_positions) return;
    const auto one = model::forward_numbers(c, 1, P);
    const auto all = one ? io::checked_product({count, *one}) : std::nullopt;
    charge_numbers(all, fmt::format("{} forward{} of {} tokens ({} layers × {} heads × {} × {} scores each)", count,
                                    count == 1 ? "" : "s", P, c.n_layer, c.n_head, P, P),
                   where);
}

}  // namespace attn::cli
